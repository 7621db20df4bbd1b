import NIOHTTP1

typealias RouteHandler = @Sendable (Request) async throws(APIFailure) -> Response

/// One path pattern and method (or every method) with the handler that answers it.
struct Route: Sendable {
    enum Segment: Sendable, Equatable {
        case literal(String)
        /// A `{name}` segment; its value reaches the handler in `Request.pathParameters`.
        case parameter
    }

    let pattern: [Segment]
    /// `nil` answers every method.
    let method: HTTPMethod?
    /// Bodies of this route are gzip-compressed for clients that accept it.
    let isCompressible: Bool
    let handler: RouteHandler

    /// - Parameter path: a pattern such as `/api/users/{id}`.
    init(_ method: HTTPMethod?, _ path: String, compressible: Bool = false, handler: @escaping RouteHandler) {
        pattern = path.split(separator: "/").map { segment in
            segment.hasPrefix("{") && segment.hasSuffix("}") ? .parameter : .literal(String(segment))
        }
        self.method = method
        isCompressible = compressible
        self.handler = handler
    }

    /// The parameter values when `segments` fit the pattern.
    func match(_ segments: [String]) -> [String]? {
        guard segments.count == pattern.count else { return nil }
        var parameters: [String] = []
        for (segment, expected) in zip(segments, pattern) {
            switch expected {
            case .literal(let literal) where literal == segment:
                continue
            case .literal:
                return nil
            case .parameter:
                parameters.append(segment)
            }
        }
        return parameters
    }
}
