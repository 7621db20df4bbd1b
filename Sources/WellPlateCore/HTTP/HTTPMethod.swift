/// The request methods the client, the replay store and the proxy understand.
public enum HTTPMethod: String, Sendable, Hashable, CaseIterable, Codable {
    case get = "GET"
    case post = "POST"
    case put = "PUT"
    case delete = "DELETE"
    case patch = "PATCH"
    case head = "HEAD"
    case options = "OPTIONS"

    /// Parses a method token as it appears on the wire; methods are case-sensitive (RFC 9110 §9.1),
    /// but lower-case input from a command line is accepted for convenience.
    public init?(token: String) {
        if let exact = HTTPMethod(rawValue: token) {
            self = exact
        } else if let upper = HTTPMethod(rawValue: token.uppercased()) {
            self = upper
        } else {
            return nil
        }
    }

    /// Repeating the request has the same effect on the server as sending it once (RFC 9110 §9.2.2),
    /// so a lost response can be retried. POST and PATCH are idempotent only with an `Idempotency-Key`.
    public var isIdempotent: Bool {
        switch self {
        case .get, .head, .put, .delete, .options: true
        case .post, .patch: false
        }
    }

    /// Methods whose request body carries meaning for matching recorded requests.
    public var carriesBody: Bool {
        switch self {
        case .post, .put, .patch, .delete: true
        case .get, .head, .options: false
        }
    }
}
