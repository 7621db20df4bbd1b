import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

/// Turns the entries of a HAR file into recordings, as the proxy would have stored them.
package struct HARImporter: Sendable {
    /// An entry left out or imported with a caveat: `entry` is its position in the file (from 1)
    /// and `request` its method and URL (redacted), so a user can find it.
    package struct Note: Sendable, Equatable, CustomStringConvertible {
        package var entry: Int
        package var request: String
        package var reason: String

        package var description: String { "entry \(entry) (\(request)): \(reason)" }
    }

    package struct Result: Sendable {
        /// In file order, redacted and keyed; sequences are assigned when stored.
        package var interactions: [Interaction]
        /// The WebSocket entries (Chrome's `_webSocketMessages`) and gRPC calls, in file order,
        /// redacted and keyed.
        package var conversations: [Conversation] = []
        /// The origin of the first gRPC entry (`http://127.0.0.1:50051`): a call is stored by its
        /// path, so this is the cassette's upstream when the file has no HTTP entry.
        package var grpcOrigin: String?
        package var skipped: [Note]
        package var warnings: [Note]
    }

    package var cassette: String
    package var rules: MatchingRules
    package var redactor: Redactor
    /// The store's descriptors: a gRPC call's messages are redacted on their string fields when
    /// they describe them, as the recorder does.
    package var schema: ProtoSchema

    package init(cassette: String, rules: MatchingRules = .default, redactor: Redactor = .default, schema: ProtoSchema = ProtoSchema()) {
        self.cassette = cassette
        self.rules = rules
        self.redactor = redactor
        self.schema = schema
    }

    /// The archive's entries as interactions, in file order; `progress` hears of each entry.
    package func convert(_ archive: HARArchive, progress: ProgressHandler? = nil) -> Result {
        var result = Result(interactions: [], skipped: [], warnings: [])
        let mitmproxy = archive.log.creator.name.lowercased() == "mitmproxy"
        let total = archive.log.entries.count
        for (offset, entry) in archive.log.entries.enumerated() {
            defer { progress?(offset + 1, total) }
            var warnings: [String] = []
            if Self.isGRPC(entry) {
                switch grpcCall(from: entry, warnings: &warnings) {
                case .success(let call):
                    result.conversations.append(call)
                    if result.grpcOrigin == nil, var origin = URLComponents(string: entry.request.url) {
                        (origin.path, origin.query, origin.fragment) = ("", nil, nil)
                        result.grpcOrigin = origin.string
                    }
                    result.warnings += warnings.map { Note(entry: offset + 1, request: "gRPC \(call.url)", reason: $0) }
                case .failure(let skip):
                    let url = URL(string: entry.request.url).map(redactor.redact(url:)) ?? entry.request.url
                    result.skipped.append(Note(entry: offset + 1, request: "gRPC \(url)", reason: skip.reason))
                }
                continue
            }
            if Self.isWebSocket(entry) {
                if let conversation = conversation(from: entry, warnings: &warnings) {
                    result.conversations.append(conversation)
                    result.warnings += warnings.map { Note(entry: offset + 1, request: "WebSocket \(conversation.url)", reason: $0) }
                } else {
                    let url = URL(string: entry.request.url).map(redactor.redact(url:)) ?? entry.request.url
                    result.skipped.append(Note(entry: offset + 1, request: "WebSocket \(url)", reason: "not a ws(s) or http(s) URL"))
                }
                continue
            }
            switch interaction(from: entry, mitmproxy: mitmproxy, warnings: &warnings) {
            case .success(let interaction):
                result.interactions.append(interaction)
                let request = "\(interaction.method.rawValue) \(interaction.url)"
                result.warnings += warnings.map { Note(entry: offset + 1, request: request, reason: $0) }
            case .failure(let skip):
                let url = URL(string: entry.request.url).map(redactor.redact(url:)) ?? entry.request.url
                result.skipped.append(Note(entry: offset + 1, request: "\(entry.request.method) \(url)", reason: skip.reason))
            }
        }
        return result
    }

    struct Skip: Error {
        let reason: String
    }

    private func interaction(from entry: HAREntry, mitmproxy: Bool, warnings: inout [String]) -> Swift.Result<Interaction, Skip> {
        guard let method = HTTPMethod(token: entry.request.method) else {
            return .failure(
                Skip(reason: "method \(entry.request.method) cannot be replayed (supported: \(HTTPMethod.allCases.map(\.rawValue).joined(separator: ", ")))"))
        }
        guard let url = URL(string: entry.request.url), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            return .failure(Skip(reason: "not an http(s) URL"))
        }
        let status = entry.response.status
        guard (100...599).contains(status) else {
            return .failure(Skip(reason: "no response (status \(status): the request failed or was blocked)"))
        }
        let requestHeaders = Self.fields(entry.request.headers, warnings: &warnings)
        var requestBody: Data?
        do {
            requestBody = try entry.request.postData.flatMap { try Self.body(of: $0, contentType: requestHeaders[.contentType], mitmproxy: mitmproxy) }
        } catch {
            return .failure(Skip(reason: "its request body is marked base64 but is not valid base64"))
        }
        var responseBody = Data()
        if let text = entry.response.content.text {
            if entry.response.content.encoding?.lowercased() == "base64" {
                guard let decoded = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                    return .failure(Skip(reason: "its response body is marked base64 but is not valid base64"))
                }
                responseBody = decoded
            } else {
                responseBody = HARText.bytes(
                    of: text, contentType: entry.response.headers.last { $0.name.lowercased() == "content-type" }?.value ?? entry.response.content.mimeType,
                    writtenByMitmproxy: mitmproxy)
            }
        } else if let size = entry.response.content.size, size > 0 {
            warnings.append("the HAR holds no response body (\(size) bytes were sent); imported with an empty body")
        }
        var responseHeaders = Self.fields(entry.response.headers, warnings: &warnings)
        let encoding = responseHeaders[.contentEncoding].flatMap { $0.lowercased() == "identity" ? nil : $0 }
        // Counted among the headers kept, so the export puts it back where it was.
        let encodingPosition = responseHeaders.firstIndex { $0.name == .contentEncoding }.map { index in
            responseHeaders[..<index].count { $0.name == .contentLength || !HTTPFraming.storedFramingHeaders.contains($0.name.canonicalName) }
        }
        responseHeaders[.contentEncoding] = nil
        if let encoding, Self.looksCompressed(responseBody, encoding: encoding) {
            warnings.append("its body is still \(encoding)-compressed (HAR bodies are decoded); stored as it is")
        }
        var recordedAt = Self.date(entry.startedDateTime)
        if recordedAt == nil {
            warnings.append("startedDateTime '\(entry.startedDateTime)' is not an ISO 8601 time; the import time is used")
            recordedAt = Date()
        }
        var raw = Interaction(
            cassette: cassette, method: method, url: url.absoluteString, key: "",
            requestHeaders: requestHeaders, requestBody: requestBody, statusCode: status,
            responseHeaders: responseHeaders, responseBody: responseBody, contentEncoding: encoding,
            recordedAt: recordedAt!, duration: .microseconds(Int64((Self.milliseconds(entry) * 1000).rounded()))
        )
        raw.contentEncodingPosition = encoding == nil ? nil : encodingPosition
        raw.httpVersion = HARHTTPVersion.version(entry.request.httpVersion) ?? HARHTTPVersion.version(entry.response.httpVersion)
        return .success(raw.redactedForStorage(by: redactor, rules: rules))
    }

    /// Header fields (or gRPC metadata, `naming` them in warnings) in file order. HTTP/2
    /// pseudo-headers (`:authority`) are framing, not headers.
    static func fields(_ pairs: [HARNameValue], naming: String = "header", warnings: inout [String]) -> HTTPFields {
        var fields = HTTPFields()
        for pair in pairs where !pair.name.hasPrefix(":") {
            guard let name = HTTPField.Name(pair.name) else {
                warnings.append("\(naming) name '\(pair.name)' is not valid HTTP; left out")
                continue
            }
            fields.append(HTTPField(name: name, value: pair.value))
        }
        return fields
    }

    private static func body(of postData: HARPostData, contentType: String?, mitmproxy: Bool) throws -> Data? {
        if let text = postData.text {
            guard postData.encoding?.lowercased() == "base64" else {
                return HARText.bytes(of: text, contentType: contentType ?? postData.mimeType, writtenByMitmproxy: mitmproxy)
            }
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else { throw Skip(reason: "") }
            return data
        }
        guard let params = postData.params, !params.isEmpty else { return nil }
        var components = URLComponents()
        components.queryItems = params.map { URLQueryItem(name: $0.name, value: $0.value) }
        return components.percentEncodedQuery.map { Data($0.utf8) }
    }

    private static func looksCompressed(_ body: Data, encoding: String) -> Bool {
        guard body.count >= 2 else { return false }
        let gzip = body[body.startIndex] == 0x1F && body[body.startIndex + 1] == 0x8B
        return gzip && encoding.lowercased().contains("gzip")
    }

    private static func milliseconds(_ entry: HAREntry) -> Double {
        if let time = entry.time, time >= 0 { return time }
        guard let timings = entry.timings else { return 0 }
        return [timings.blocked, timings.dns, timings.connect, timings.send, timings.wait, timings.receive]
            .compactMap { $0 }.filter { $0 > 0 }.reduce(0, +)
    }

    /// ISO 8601 with or without fractional seconds (DevTools write milliseconds, mitmproxy
    /// microseconds and `+00:00`).
    static func date(_ text: String) -> Date? {
        let full = ISO8601DateFormatter()
        full.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = full.date(from: text) { return date }
        full.formatOptions = [.withInternetDateTime]
        if let date = full.date(from: text) { return date }
        // More than three fractional digits: keep milliseconds, which is what HAR promises.
        guard let dot = text.firstIndex(of: "."), let zone = text[dot...].firstIndex(where: { $0 == "Z" || $0 == "+" || $0 == "-" }) else { return nil }
        let digits = text[text.index(after: dot)..<zone]
        guard digits.count > 3 else { return nil }
        full.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return full.date(from: String(text[...dot]) + digits.prefix(3) + text[zone...])
    }
}
