import NIOCore
import NIOHTTP1

/// One response a route produces. The connection adds the framing headers.
struct Response: Sendable {
    var status: HTTPResponseStatus
    var headers: HTTPHeaders
    /// `nil` for statuses that never carry a body (204, 304).
    var body: ByteBuffer?
    /// Set on the routes whose bodies are gzip-compressed when the client accepts it.
    var isCompressible = false

    init(status: HTTPResponseStatus, headers: HTTPHeaders = [:], body: ByteBuffer?) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    static func json(_ value: JSONValue, status: HTTPResponseStatus = .ok, headers: HTTPHeaders = [:]) -> Response {
        var headers = headers
        headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        return Response(status: status, headers: headers, body: ByteBuffer(bytes: value.serializedBytes))
    }

    static func error(_ failure: APIFailure) -> Response {
        json(
            ["error": .string(failure.code), "message": .string(failure.message)],
            status: failure.status,
            headers: failure.headers
        )
    }

    static func noContent(headers: HTTPHeaders = [:]) -> Response {
        Response(status: .noContent, headers: headers, body: nil)
    }
}

/// A request the API refuses: rendered as `{"error": code, "message": message}`.
struct APIFailure: Error, Sendable {
    var status: HTTPResponseStatus
    /// Machine-readable slug, e.g. `not_found`.
    var code: String
    /// One sentence saying what is wrong and what to do.
    var message: String
    var headers: HTTPHeaders = [:]

    static func badRequest(_ message: String) -> APIFailure {
        APIFailure(status: .badRequest, code: "bad_request", message: message)
    }

    static func notFound(_ message: String) -> APIFailure {
        APIFailure(status: .notFound, code: "not_found", message: message)
    }
}
