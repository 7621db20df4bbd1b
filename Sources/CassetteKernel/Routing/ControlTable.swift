import HTTPTypes
import NIOHTTP1

/// The proxy's own endpoints under `/__cassette/` as one table: which path is which endpoint,
/// which methods it takes, and whether only the main port has it. A path the table does not have
/// is answered 404 with the paths it does; a method an endpoint does not take, 405 with `Allow`.
enum ControlRouter {
    enum Endpoint: Equatable, Sendable {
        case health
        case stats
        /// `/__cassette/sessions` and below: its own methods per path (`SessionEndpoints`).
        case sessions
        /// `/__cassette/ui` and below: the web UI, its data and its live feed (`UIEndpoints`).
        case ui
    }

    struct Route: Sendable {
        let path: String
        let endpoint: Endpoint
        /// `nil`: the endpoint checks methods itself, per path below it.
        let methods: [NIOHTTP1.HTTPMethod]?
        /// Whether paths below `path` are the endpoint's too.
        var includesBelow = false
        /// Only the main port has it: sessions are opened and managed there.
        var mainPortOnly = false
    }

    static let routes: [Route] = [
        Route(path: ControlNames.health, endpoint: .health, methods: [.GET, .HEAD]),
        Route(path: ControlNames.stats, endpoint: .stats, methods: [.GET, .HEAD]),
        Route(path: ControlNames.sessions, endpoint: .sessions, methods: nil, includesBelow: true, mainPortOnly: true),
        // Served on the main port (its Live view follows the whole proxy); a session's port
        // answers 404 naming the main port (`ProxyEndpoints`).
        Route(path: ControlNames.ui, endpoint: .ui, methods: [.GET, .HEAD], includesBelow: true),
    ]

    /// Sessions asked for on a session's own port.
    static let noSessionsHere = ControlRefusal(
        status: 404, code: "no_sessions_here",
        message: "this port is a session's own; sessions are opened and managed on the main port of `cassette record`, `replay` or `run`")

    /// Where a control request goes.
    enum Decision: Equatable, Sendable {
        case endpoint(Endpoint)
        /// Answered at once with this error (404, 405).
        case refuse(ControlRefusal)

        var refusal: ControlRefusal? {
            if case .refuse(let refusal) = self { return refusal }
            return nil
        }
    }

    /// The decision for `method` on `target` (`/__cassette/…`, with or without a query);
    /// `onMainPort`: the port has sessions.
    static func route(_ method: NIOHTTP1.HTTPMethod, _ target: String, onMainPort: Bool) -> Decision {
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? target
        guard let route = routes.first(where: { $0.path == path || ($0.includesBelow && path.hasPrefix($0.path + "/")) }) else {
            let known = routes.filter { !$0.includesBelow }.map(\.path).joined(separator: " and ")
            return .refuse(ControlRefusal(status: 404, code: "not_found", message: "the proxy has \(known)"))
        }
        if route.mainPortOnly && !onMainPort { return .refuse(noSessionsHere) }
        if let methods = route.methods, !methods.contains(method) {
            let names = methods.map(\.rawValue)
            return .refuse(
                ControlRefusal(
                    status: 405, code: "method_not_allowed", message: "use \(names.filter { $0 != "HEAD" }.joined(separator: " or "))",
                    allow: names))
        }
        return .endpoint(route.endpoint)
    }
}

/// A control request refused before any endpoint sees it.
struct ControlRefusal: Equatable, Sendable {
    let status: Int
    let code: String
    let message: String
    /// The methods the endpoint takes, for `Allow` on a 405.
    var allow: [String] = []

    /// As the proxy answers it: an endpoint's answer, which stays out of a session's journal.
    var answer: ProxyAnswer {
        answer(source: .endpoint)
    }

    func answer(source: ProxyAnswer.Source) -> ProxyAnswer {
        var answer = ProxyAnswer.error(status, code: code, message: message, source: source)
        if !allow.isEmpty, case .fields(let status, var fields) = answer.head {
            fields[.allow] = allow.joined(separator: ", ")
            answer.head = .fields(statusCode: status, fields)
        }
        return answer
    }
}
