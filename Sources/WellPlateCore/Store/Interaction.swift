import Foundation
import HTTPTypes

/// One recorded exchange, as stored: everything in it has already been redacted.
public struct Interaction: Sendable, Equatable {
    /// The row id once stored.
    public var id: Int64?
    /// The cassette (usually an environment name such as `dev`) it belongs to.
    public var cassette: String
    /// The request method.
    public var method: HTTPMethod
    /// The URL as it was sent upstream (redacted).
    public var url: String
    /// The normalized request key (`RequestKey.rawValue`).
    public var key: String
    /// 0-based position among recordings with the same key, in recorded order.
    public var sequence: Int
    /// The request headers as sent upstream (redacted).
    public var requestHeaders: HTTPFields
    /// The request body as sent upstream (redacted); `nil` when there was none.
    public var requestBody: Data?
    /// The HTTP status code of the response.
    public var statusCode: Int
    /// Response headers; `Content-Encoding` is never present because bodies are stored decoded
    /// (`contentEncodingPosition` says where it was).
    /// Interactions from a replay index have no `Content-Length` here: use `response`.
    public var responseHeaders: HTTPFields
    /// The decoded body, byte-exact.
    public var responseBody: Data
    /// The `Content-Encoding` the upstream used on the wire, before decoding.
    public var contentEncoding: String?
    /// Where `Content-Encoding` stood among the response headers before the body was decoded,
    /// so an export can restore the order recorded; `nil` when not known (put it last).
    public var contentEncodingPosition: Int?
    /// When the exchange was recorded.
    public var recordedAt: Date
    /// Upstream time from request to the last byte of the response.
    public var duration: Duration
    /// For a response that was streamed while recording: its body's pieces and their times.
    /// `nil` for a response recorded whole.
    public var chunks: [ResponseChunk]?
    /// Where the stored response holds `REDACTED` for a secret of the request's headers, which
    /// replay fills with the live request's own value (`echoingSecrets(of:)`).
    package var secretEchoes: [SecretEcho] = []
    /// The HTTP version the client spoke when it was recorded (HTTP/1.1 or HTTP/2 through the
    /// proxy); `nil` when not known (stores from before it was kept, the library's recorder).
    /// Exports only: keys and replay never look at it, so one recording serves both versions.
    package var httpVersion: RecordedHTTPVersion?

    /// An interaction from its parts; `id` stays `nil` until the store assigns one.
    public init(
        id: Int64? = nil,
        cassette: String,
        method: HTTPMethod,
        url: String,
        key: String,
        sequence: Int = 0,
        requestHeaders: HTTPFields = [:],
        requestBody: Data? = nil,
        statusCode: Int,
        responseHeaders: HTTPFields = [:],
        responseBody: Data = Data(),
        contentEncoding: String? = nil,
        recordedAt: Date = Date(),
        duration: Duration = .zero,
        chunks: [ResponseChunk]? = nil
    ) {
        self.id = id
        self.cassette = cassette
        self.method = method
        self.url = url
        self.key = key
        self.sequence = sequence
        self.requestHeaders = requestHeaders
        self.requestBody = requestBody
        self.statusCode = statusCode
        self.responseHeaders = responseHeaders
        self.responseBody = responseBody
        self.contentEncoding = contentEncoding
        self.recordedAt = recordedAt
        self.duration = duration
        self.chunks = chunks
    }

    /// The response as a transport returns it: body decoded, `Content-Length` matching it (a
    /// replay index keeps headers without it, so identical header sets can be shared).
    public var response: TransportResponse {
        var headers = responseHeaders
        let bodiless = HTTPFraming.answerIsBodiless(isHEAD: method == .head, statusCode: statusCode)
        if !bodiless, headers[.contentLength] == nil {
            headers[.contentLength] = String(responseBody.count)
        }
        return TransportResponse(statusCode: statusCode, headerFields: headers, body: responseBody, decodedContentEncoding: contentEncoding, duration: duration)
    }

    /// The marker position written with the response headers: only a decoded body has one.
    var storedEncodingPosition: Int? {
        contentEncoding == nil ? nil : contentEncodingPosition
    }

    /// Milliseconds, as stored and displayed.
    public var durationMilliseconds: Double {
        duration.fractionalMilliseconds
    }
}

extension Interaction {
    /// Response headers cleaned for storage: framing headers go, `Content-Length` describes the
    /// decoded body (except for responses that never carry one). `addsLength` false (a streamed
    /// answer) adds none where the server sent none: the proxy then replays it chunked, as the
    /// client saw it while recording, and with its length otherwise.
    static func storedResponseHeaders(_ fields: HTTPFields, bodyCount: Int, statusCode: Int, method: HTTPMethod, addsLength: Bool = true) -> HTTPFields {
        var result = HTTPFields()
        result.reserveCapacity(fields.count + 1)
        let bodiless = HTTPFraming.answerIsBodiless(isHEAD: method == .head, statusCode: statusCode)
        var lengthWritten = false
        for field in fields {
            if field.name == .contentLength {
                // Kept where and as the server wrote it (HAR round trips keep header order byte
                // for byte), once, with the decoded body's length.
                guard !lengthWritten, !bodiless || method == .head else { continue }
                lengthWritten = true
                result.append(HTTPField(name: field.name, value: method == .head ? field.value : String(bodyCount)))
            } else if !HTTPFraming.storedFramingHeaders.contains(field.name.canonicalName) {
                result.append(field)
            }
        }
        if addsLength && !bodiless && !lengthWritten {
            result[.contentLength] = String(bodyCount)
        }
        return result
    }
}

extension RequestKey {
    /// The key of a stored request, recomputed with `rules`: how the store rekeys a cassette and
    /// how a miss explains the body of a near recording.
    init(recording interaction: Interaction, rules: MatchingRules) {
        self.init(method: interaction.method, target: interaction.url, headerFields: interaction.requestHeaders, body: interaction.requestBody, rules: rules)
    }
}
