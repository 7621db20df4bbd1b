import CassetteTools
import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

/// What the proxy sends back for one request, and how it came about.
struct ProxyAnswer: Sendable {
    /// The word in the request log line and the `X-Cassette` header's source.
    enum Source: String, Sendable {
        case replayed
        case recorded
        case passthrough
        case miss
        case error
        /// The proxy's own `/__cassette/` endpoints.
        case endpoint

        var headerValue: String {
            switch self {
            case .endpoint: "endpoint"
            case .replayed: "hit"
            case .recorded: "recorded"
            case .passthrough: "passthrough"
            case .miss: "miss"
            case .error: "error"
            }
        }
    }

    var statusCode: Int
    var headerFields: HTTPFields
    var body: Data
    package var source: Source
    /// Held back this long before sending (replay latency).
    var delay: Duration = .zero

    init(statusCode: Int, headerFields: HTTPFields, body: Data, source: Source, delay: Duration = .zero) {
        self.statusCode = statusCode
        self.headerFields = headerFields
        self.body = body
        self.source = source
        self.delay = delay
    }

    init(_ response: TransportResponse, source: Source, delay: Duration = .zero) {
        self.init(statusCode: response.statusCode, headerFields: response.headerFields, body: response.body, source: source, delay: delay)
    }

    /// A JSON answer the proxy itself produced (errors, misses, its own endpoints).
    static func json(_ status: Int, _ value: JSONValue, source: Source) -> ProxyAnswer {
        var fields = HTTPFields()
        fields[.contentType] = "application/json; charset=utf-8"
        return ProxyAnswer(statusCode: status, headerFields: fields, body: Data((value.compactJSON + "\n").utf8), source: source)
    }

    /// The proxy's own error: `{"error": code, "message": message}`, one shape for every failure.
    static func error(_ status: Int, code: String, message: String, source: Source = .error) -> ProxyAnswer {
        .json(status, ["error": .string(code), "message": .string(message)], source: source)
    }
}
