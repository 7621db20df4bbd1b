import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

/// Writes recordings as a HAR 1.2 archive that DevTools and mitmproxy open: every field the
/// specification requires, bodies as text when they are printable UTF-8 and base64 otherwise.
package struct HARExporter: Sendable {
    package var creatorName: String
    package var creatorVersion: String
    /// Each cassette's upstream origin (`http://127.0.0.1:50051`): the store keeps a gRPC call's
    /// path only, and a HAR entry needs its whole URL.
    package var grpcOrigins: [String: String]
    /// The store's descriptors: gRPC messages are written as protobuf JSON too when they describe them.
    package var protoSchema: ProtoSchema

    package init(creatorName: String = "cassette", creatorVersion: String, grpcOrigins: [String: String] = [:], protoSchema: ProtoSchema = ProtoSchema()) {
        self.creatorName = creatorName
        self.creatorVersion = creatorVersion
        self.grpcOrigins = grpcOrigins
        self.protoSchema = protoSchema
    }

    /// The archive of `interactions`, WebSocket conversations and gRPC calls in recorded order (time, then
    /// row id, a recording before a conversation recorded at the same moment).
    package func archive(_ interactions: [Interaction], conversations: [Conversation] = []) -> HARArchive {
        let recordings = interactions.map { (at: $0.recordedAt, order: (0, $0.id ?? 0), entry: entry($0)) }
        let sockets = conversations.map { (at: $0.recordedAt, order: (1, $0.id ?? 0), entry: $0.grpc == nil ? entry($0) : grpcEntry($0)) }
        let ordered = (recordings + sockets).sorted { ($0.at, $0.order.0, $0.order.1) < ($1.at, $1.order.0, $1.order.1) }
        return HARArchive(log: HARLog(creator: HARCreator(name: creatorName, version: creatorVersion), entries: ordered.map(\.entry)))
    }

    func entry(_ interaction: Interaction) -> HAREntry {
        let milliseconds = interaction.durationMilliseconds
        return HAREntry(
            startedDateTime: Self.timestamp(interaction.recordedAt),
            time: milliseconds,
            request: request(interaction),
            response: response(interaction),
            timings: HARTimings(send: 0, wait: milliseconds, receive: 0),
            comment: Self.comment(interaction)
        )
    }

    /// `cassette dev, key …, sequence 0`, opened by the GraphQL operation when there is one
    /// (`query GetUser; cassette dev, …`): HAR viewers show the comment, and every GraphQL entry
    /// otherwise reads `POST /graphql`.
    static func comment(_ interaction: Interaction) -> String {
        let comment = "cassette \(interaction.cassette), key \(interaction.key), sequence \(interaction.sequence)"
        guard let operation = GraphQLKeyPart(inKey: interaction.key) else { return comment }
        return "\(operation.label); \(comment)"
    }

    private func request(_ interaction: Interaction) -> HARRequest {
        let query = URLComponents(string: interaction.url)?.queryItems ?? []
        var postData: HARPostData?
        if let body = interaction.requestBody {
            let (text, encoding) = Self.text(of: body, contentType: interaction.requestHeaders[.contentType])
            postData = HARPostData(mimeType: interaction.requestHeaders[.contentType] ?? "", text: text, params: nil, encoding: encoding)
        }
        return HARRequest(
            method: interaction.method.rawValue, url: interaction.url, httpVersion: HARHTTPVersion.text(interaction.httpVersion), cookies: [],
            headers: Self.pairs(interaction.requestHeaders),
            queryString: query.map { HARNameValue(name: $0.name, value: $0.value ?? "") },
            postData: postData, headersSize: -1, bodySize: interaction.requestBody?.count ?? 0
        )
    }

    private func response(_ interaction: Interaction) -> HARResponse {
        var headers = interaction.responseHeaders
        // The store keeps bodies decoded; the headers say how they travelled, as in any HAR.
        if let encoding = interaction.contentEncoding, headers[.contentEncoding] == nil {
            let field = HTTPField(name: .contentEncoding, value: encoding)
            headers.insert(field, at: min(interaction.contentEncodingPosition ?? headers.count, headers.count))
        }
        let body = interaction.responseBody
        let (text, encoding) = Self.text(of: body, contentType: interaction.responseHeaders[.contentType])
        let contentType = interaction.responseHeaders[.contentType] ?? ""
        return HARResponse(
            status: interaction.statusCode,
            statusText: HTTPResponse.Status(code: interaction.statusCode).reasonPhrase,
            httpVersion: HARHTTPVersion.text(interaction.httpVersion), cookies: [], headers: Self.pairs(headers),
            content: HARContent(
                size: body.count, compression: nil, mimeType: contentType.isEmpty ? "x-unknown" : contentType, text: body.isEmpty ? "" : text,
                encoding: encoding),
            redirectURL: interaction.responseHeaders[.location] ?? "",
            // A decoded body's size on the wire is not known.
            headersSize: -1, bodySize: interaction.contentEncoding == nil ? body.count : -1
        )
    }

    private static func pairs(_ fields: HTTPFields) -> [HARNameValue] {
        fields.map { HARNameValue(name: $0.name.rawName, value: $0.value) }
    }

    /// Text when every reader gets the same bytes back (`HARText.isSafeAsText`); base64 otherwise
    /// (images, compressed data, control bytes, non-ASCII text without a UTF-8 charset).
    static func text(of body: Data, contentType: String?) -> (text: String, encoding: String?) {
        if HARText.isSafeAsText(body, contentType: contentType) {
            return (String(decoding: body, as: UTF8.self), nil)
        }
        return (body.base64EncodedString(), "base64")
    }

    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
