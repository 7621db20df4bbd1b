import NIOHTTP1

/// Dispatches requests to routes and answers what no route handles: 404, 405, OPTIONS and HEAD.
struct Router: Sendable {
    private let routes: [Route]

    init(routes: [Route]) {
        self.routes = routes
    }

    /// The methods `Allow` lists for a route that accepts any method.
    private static let everyMethod: [HTTPMethod] = [.GET, .HEAD, .POST, .PUT, .PATCH, .DELETE, .OPTIONS]

    func respond(to request: Request) async -> Response {
        let matches = routes.compactMap { route in route.match(request.pathSegments).map { (route, $0) } }
        let allow = Self.allowHeader(for: matches.map(\.0))
        if request.method == .OPTIONS {
            return .noContent(headers: ["Allow": allow])
        }
        guard !matches.isEmpty else {
            return .error(.notFound("No route for \(request.method.rawValue) \(request.path)"))
        }
        // HEAD is answered by the GET handler; the connection drops the body but keeps the headers.
        let chosen =
            matches.first { $0.0.method == request.method }
            ?? (request.method == .HEAD ? matches.first { $0.0.method == .GET } : nil)
            ?? matches.first { $0.0.method == nil }
        guard let (route, parameters) = chosen else {
            return .error(
                APIFailure(
                    status: .methodNotAllowed,
                    code: "method_not_allowed",
                    message: "Method \(request.method.rawValue) is not allowed on \(request.path); use one of \(allow)",
                    headers: ["Allow": allow]
                )
            )
        }
        var routed = request
        routed.pathParameters = parameters
        var response: Response
        do {
            response = try await route.handler(routed)
        } catch {
            response = .error(error)
        }
        response.isCompressible = route.isCompressible
        return response
    }

    private static func allowHeader(for routes: [Route]) -> String {
        var methods: Set<String> = [HTTPMethod.OPTIONS.rawValue]
        for route in routes {
            guard let method = route.method else {
                methods.formUnion(everyMethod.map(\.rawValue))
                continue
            }
            methods.insert(method.rawValue)
            if method == .GET { methods.insert(HTTPMethod.HEAD.rawValue) }
        }
        // Methods outside the usual set (none today) would go last, in a stable order.
        let known = everyMethod.map(\.rawValue).filter(methods.contains)
        let others = methods.subtracting(known).sorted()
        return (known + others).joined(separator: ", ")
    }
}
