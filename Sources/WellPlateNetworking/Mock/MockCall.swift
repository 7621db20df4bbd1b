import Foundation
import WellPlateCore

/// One request a `MockAPIClient` received, as the caller sent it.
public struct MockCall: Sendable, Equatable {
    /// The request method.
    public let method: HTTPMethod
    /// The URL as the caller passed it.
    public let url: URL
    /// The headers the caller passed (the mock adds no defaults).
    public let headers: [String: String]
    /// The body the caller passed, if any.
    public let body: Data?
    /// When the client received the call.
    public let timestamp: Date

    /// A call from its parts.
    public init(method: HTTPMethod, url: URL, headers: [String: String], body: Data?, timestamp: Date) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timestamp = timestamp
    }

    /// The percent-decoded path, as routes match it.
    public var path: String { RequestPath(url: url).description }

    /// A header's value, the name compared case-insensitively as HTTP does.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The body decoded as JSON with the client's decoder, to assert on what was sent.
    /// - Throws: `APIError.noData` without a body, `APIError.decodingError` when it does not fit `T`.
    public func decodedBody<T: Decodable>(as type: T.Type = T.self) throws -> T {
        guard let body, !body.isEmpty else { throw APIError.noData }
        return try JSONCoding.decode(type, from: body)
    }
}
