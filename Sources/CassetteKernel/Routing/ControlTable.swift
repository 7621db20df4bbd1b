import HTTPTypes
import NIOCore
import NIOHTTP1

/// The proxy's own endpoints (under `/__cassette/` on a proxy, the whole UI of `cassette ui`) as
/// one table, filled by the modules: which path is which endpoint, which methods it takes. It is
/// the only place that answers a control path nobody registered (404, naming the paths there
/// are) and a method an endpoint does not take (405 with `Allow`), so an endpoint only ever
/// sees requests it takes.
package final class ControlTable: Sendable {
    package struct Route: Sendable {
        /// The path; a `*` segment stands for any one segment (`/__cassette/sessions/*/reset`).
        package let path: String
        /// `nil` for a route the table refuses itself (`refusal`).
        package let endpoint: (any ControlEndpoint)?
        package let methods: [NIOHTTP1.HTTPMethod]
        /// What a 405 tells the client to use, when the methods' names say too little (`GET (list) or POST (open)`).
        package var advice: String?
        /// Every path below `path` is this route's too (the UI's assets and data).
        package var includesBelow = false
        /// Answered at once with this error: a path that exists on another listener (sessions
        /// on a session's own port), or the paths below a family that no route of it names.
        package var refusal: ControlRefusal?
        /// Named in the 404 of an unknown control path.
        package var listed = true

        package init(
            path: String, endpoint: (any ControlEndpoint)?, methods: [NIOHTTP1.HTTPMethod], advice: String? = nil, includesBelow: Bool = false,
            refusal: ControlRefusal? = nil, listed: Bool = true
        ) {
            self.path = path
            self.endpoint = endpoint
            self.methods = methods
            self.advice = advice
            self.includesBelow = includesBelow
            self.refusal = refusal
            self.listed = listed
        }

        /// A path the table always refuses with `refusal`, with every path below it.
        package static func refused(_ path: String, _ refusal: ControlRefusal) -> Route {
            Route(path: path, endpoint: nil, methods: [], includesBelow: true, refusal: refusal, listed: false)
        }

        fileprivate func matches(_ segments: [Substring]) -> Bool {
            var own = path.split(separator: "/", omittingEmptySubsequences: false)
            // `/` with the paths below it: every path.
            if includesBelow && own.last == "" { own.removeLast() }
            guard includesBelow ? segments.count >= own.count : segments.count == own.count else { return false }
            return zip(own, segments).allSatisfy { $0 == "*" ? !$1.isEmpty : $0 == $1 }
        }
    }

    /// Where a control request goes.
    package enum Decision: Sendable {
        /// To `endpoint`, registered at `path`.
        case endpoint(path: String, any ControlEndpoint)
        /// Answered at once with this error (404, 405, a refused path).
        case refuse(ControlRefusal)

        package var refusal: ControlRefusal? {
            if case .refuse(let refusal) = self { return refusal }
            return nil
        }

        /// The registered path it goes to; `nil` for a refusal.
        package var path: String? {
            if case .endpoint(let path, _) = self { return path }
            return nil
        }
    }

    /// Every control path starts with it; nothing under it is ever forwarded.
    package let prefix: String
    /// Exact routes first, then families (`includesBelow`) from the longest path down.
    package let routes: [Route]

    package init(prefix: String = ControlNames.prefix, routes: [Route] = []) {
        self.prefix = prefix
        self.routes = routes.filter { !$0.includesBelow } + routes.filter(\.includesBelow).sorted { $0.path.count > $1.path.count }
    }

    /// This table with `more` routes; a later route for a path already there (with or without
    /// the paths below it) replaces it.
    package func registering(_ more: [Route]) -> ControlTable {
        let paths = Set(more.map { "\($0.includesBelow) \($0.path)" })
        return ControlTable(prefix: prefix, routes: routes.filter { !paths.contains("\($0.includesBelow) \($0.path)") } + more)
    }

    /// Whether `target` is a control path at all.
    @inline(__always)
    package func claims(_ target: String) -> Bool {
        target.hasPrefix(prefix)
    }

    /// The decision for `method` on `target` (with or without a query).
    package func route(_ method: NIOHTTP1.HTTPMethod, _ target: String) -> Decision {
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? Substring(target)
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard let route = routes.first(where: { $0.matches(segments) }) else {
            let known = routes.filter { $0.listed && !$0.includesBelow && !$0.path.contains("*") }.map(\.path).joined(separator: " and ")
            return .refuse(ControlRefusal(status: 404, code: "not_found", message: "the proxy has \(known)"))
        }
        if let refusal = route.refusal { return .refuse(refusal) }
        guard route.methods.contains(method), let endpoint = route.endpoint else {
            let names = route.methods.map(\.rawValue)
            let advice = route.advice ?? names.filter { $0 != "HEAD" }.joined(separator: " or ")
            let message = route.advice == nil ? "use \(advice)" : "\(path) does not take \(method.rawValue); use \(advice)"
            return .refuse(ControlRefusal(status: 405, code: "method_not_allowed", message: message, allow: names))
        }
        return .endpoint(path: route.path, endpoint)
    }
}

/// A control request refused before any endpoint sees it.
package struct ControlRefusal: Equatable, Sendable {
    package let status: Int
    package let code: String
    package let message: String
    /// The methods the endpoint takes, for `Allow` on a 405.
    package var allow: [String] = []

    package init(status: Int, code: String, message: String, allow: [String] = []) {
        self.status = status
        self.code = code
        self.message = message
        self.allow = allow
    }

    /// As the proxy answers it: an endpoint's answer, which stays out of a session's journal.
    package var answer: ProxyAnswer {
        answer(source: .endpoint)
    }

    package func answer(source: ProxyAnswer.Source) -> ProxyAnswer {
        var answer = ProxyAnswer.error(status, code: code, message: message, source: source)
        if !allow.isEmpty, case .fields(let status, var fields) = answer.head {
            fields[.allow] = allow.joined(separator: ", ")
            answer.head = .fields(statusCode: status, fields)
        }
        return answer
    }
}
