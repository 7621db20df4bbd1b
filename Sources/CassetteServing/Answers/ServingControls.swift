import CassetteKernel
import NIOHTTP1
import WellPlateCore

/// The control endpoints serving registers on each listener: health and statistics everywhere,
/// the sessions on the main port (every path and sub-path with its methods, so the table answers
/// every 404 and 405), and their refusal on a session's own port.
package enum ServingControls {
    /// `endpoints`' routes, with `sessions` on the main port (`nil` on a session's port).
    package static func routes(_ endpoints: ProxyEndpoints, sessions: SessionRegistry?) -> [ControlTable.Route] {
        routes(health: Health(endpoints: endpoints), stats: Stats(endpoints: endpoints), sessions: sessions.map { Sessions(registry: $0) })
    }

    /// The routes of these endpoints; `sessions`: the main port's.
    package static func routes(health: any ControlEndpoint, stats: any ControlEndpoint, sessions: (any ControlEndpoint)?) -> [ControlTable.Route] {
        var routes = [
            ControlTable.Route(path: ControlNames.health, endpoint: health, methods: [.GET, .HEAD]),
            ControlTable.Route(path: ControlNames.stats, endpoint: stats, methods: [.GET, .HEAD]),
        ]
        guard let endpoint = sessions else {
            routes.append(.refused(ControlNames.sessions, SessionEndpoints.noSessionsHere))
            return routes
        }
        let root = ControlNames.sessions
        routes += [
            ControlTable.Route(path: root, endpoint: endpoint, methods: [.GET, .HEAD, .POST], advice: "GET (list) or POST (open)", listed: false),
            ControlTable.Route(path: root + "/*", endpoint: endpoint, methods: [.GET, .HEAD, .DELETE], advice: "GET (inspect) or DELETE (end)", listed: false),
            ControlTable.Route(path: root + "/*/requests", endpoint: endpoint, methods: [.GET, .HEAD], advice: "GET", listed: false),
            ControlTable.Route(path: root + "/*/reset", endpoint: endpoint, methods: [.POST], advice: "POST", listed: false),
            .refused(root, SessionEndpoints.notASessionEndpoint),
        ]
        return routes
    }

    private struct Health: ControlEndpoint {
        let endpoints: ProxyEndpoints

        func answer(_ request: ControlRequest) -> ControlAnswer {
            .now(endpoints.health())
        }
    }

    private struct Stats: ControlEndpoint {
        let endpoints: ProxyEndpoints

        func answer(_ request: ControlRequest) -> ControlAnswer {
            .now(.json(200, endpoints.statistics(), source: .endpoint))
        }
    }

    private struct Sessions: ControlEndpoint {
        let registry: SessionRegistry

        func answer(_ request: ControlRequest) -> ControlAnswer {
            let (registry, head, body, proxyBase) = (self.registry, request.head, request.body, request.proxyBase)
            return .later { await registry.answer(head: head, body: body, proxyBase: proxyBase) }
        }
    }
}
