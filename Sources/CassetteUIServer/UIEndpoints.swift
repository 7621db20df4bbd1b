import CassetteKernel
import CassetteUI
import Foundation
import HTTPTypes
import NIOHTTP1
import WellPlateCore

/// The web UI under `/__cassette/ui/`: its page, its JSON data (`api/...`, read from the store
/// off the event loop) and, on a proxy, the Live view's event stream.
package struct UIEndpoints: ControlEndpoint {
    package let catalog: UICatalog
    package let access: UIAccess
    /// The proxy's feed; `nil` for `cassette ui`, which serves a store and no traffic.
    package let live: LiveFeed?
    /// The proxy's sessions as the Sessions view shows them (`{"sessions": [...]}`); `nil` for
    /// `cassette ui`, which has none.
    package let sessions: (@Sendable () -> JSONValue)?

    package init(catalog: UICatalog, access: UIAccess, live: LiveFeed?, sessions: (@Sendable () -> JSONValue)? = nil) {
        self.catalog = catalog
        self.access = access
        self.live = live
        self.sessions = sessions
    }

    /// The UI's route on a proxy's main port: the page, its data and the live stream, GET only.
    package var route: ControlTable.Route {
        Self.route(self)
    }

    package static func route(_ endpoint: any ControlEndpoint) -> ControlTable.Route {
        ControlTable.Route(path: ControlNames.ui, endpoint: endpoint, methods: [.GET, .HEAD], includesBelow: true, listed: false)
    }

    /// A session's own port: the UI is on the main port (its Live view follows the whole proxy).
    package static let refusedOnSessionPorts = ControlTable.Route.refused(
        ControlNames.ui,
        ControlRefusal(status: 404, code: "no_ui_here", message: "the UI is on the main port of `cassette record`, `replay` or `run`"))

    package func answer(_ request: ControlRequest) -> ControlAnswer {
        switch decide(request.head) {
        case .answer(let answer):
            return .now(answer)
        case .later(let make):
            return .later(make)
        case .follow(let live):
            return .stream(Self.eventStreamHead(for: request.head), follow: { live.follow($0) })
        case .sessions:
            return .now(Self.sessionsAnswer(sessions?()))
        }
    }

    /// How one UI request is answered.
    package enum Decision: Sendable {
        case answer(ProxyAnswer)
        /// Read from the store, in a task.
        case later(@Sendable () async -> ProxyAnswer)
        /// The Live view's event stream: kept open, fed by `LiveFeed`.
        case follow(LiveFeed)
        /// The proxy's sessions (`api/sessions`), as `sessions` gives them.
        case sessions
    }

    package static let root = ControlNames.ui + "/"

    package func decide(_ head: HTTPRequestHead) -> Decision {
        let request = UIRequest(target: head.uri, root: Self.root)
        guard head.uri.hasPrefix(Self.root) else {
            // `/__cassette/ui` (or `/` of `cassette ui`): the page lives one slash further, so its
            // relative links resolve below it.
            return .answer(Self.redirect(to: Self.root + (request.query["token"].map { "?token=\($0)" } ?? "")))
        }
        guard access.allows(head, queryToken: request.query["token"]) else {
            return .answer(
                Self.error(
                    401, "ui_token_required",
                    "open the UI with the URL cassette printed at start (it ends in ?token=...); the UI is bound to a non-loopback address"))
        }
        switch request.path {
        case "api/cassettes":
            let catalog = self.catalog
            return .later { await Self.json { try await catalog.cassettes() } }
        case "api/interactions":
            if let status = request.query["status"], !status.isEmpty, Int(status) == nil {
                return .answer(Self.error(400, "bad_filter", "status must be a number such as 404, not \"\(status)\""))
            }
            let (catalog, query) = (self.catalog, request.browseQuery)
            return .later { await Self.json { try await catalog.interactions(query) } }
        case "api/interaction":
            guard let id = request.query["id"].flatMap({ Int64($0) }) else {
                return .answer(Self.error(400, "bad_id", "give the recording's id: api/interaction?id=N"))
            }
            let catalog = self.catalog
            return .later {
                await Self.json {
                    guard let found = try await catalog.interaction(id: id) else { throw NotFound(id: id, what: "recording") }
                    return found
                }
            }
        case "api/conversations":
            let (catalog, cassette) = (self.catalog, request.browseQuery.cassette)
            return .later { await Self.json { try await catalog.conversations(cassette: cassette) } }
        case "api/conversation":
            guard let id = request.query["id"].flatMap({ Int64($0) }) else {
                return .answer(Self.error(400, "bad_id", "give the conversation's id: api/conversation?id=N"))
            }
            let catalog = self.catalog
            return .later {
                await Self.json {
                    guard let found = try await catalog.conversation(id: id) else { throw NotFound(id: id, what: "WebSocket conversation or gRPC call") }
                    return found
                }
            }
        case "api/findings":
            guard let findings = catalog.findings else {
                return .answer(Self.page(200, contentType: "application/json; charset=utf-8", body: Data("{\"audit\":null,\"drift\":null}\n".utf8)))
            }
            return .later { await Self.json { try await findings() } }
        case "api/sessions":
            return .sessions
        case "api/live":
            guard let live else {
                return .answer(
                    Self.error(404, "no_live_view", "cassette ui serves a store; the Live view is on a running proxy's /__cassette/ui/"))
            }
            return .follow(live)
        default:
            guard let asset = UIAssets.asset(named: request.path) else {
                return .answer(Self.error(404, "not_found", "the UI has no \(request.path); open \(Self.root)"))
            }
            var answer = Self.page(200, contentType: asset.contentType, body: asset.bytes)
            if request.query["token"] != nil, let cookie = access.cookie(path: Self.root), case .fields(let status, var fields) = answer.head {
                fields[.setCookie] = cookie
                answer.head = .fields(statusCode: status, fields)
            }
            return .answer(answer)
        }
    }

    /// The head of the Live view's event stream (no length: it never ends by itself).
    package static func eventStreamHead(for request: HTTPRequestHead) -> HTTPResponseHead {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/event-stream; charset=utf-8")
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        headers.add(name: ControlNames.answerHeader, value: ProxyAnswer.Source.endpoint.headerValue)
        return HTTPResponseHead(version: request.version, status: .ok, headers: headers)
    }

    private struct NotFound: Error {
        package let id: Int64
        /// `recording` or `WebSocket conversation`.
        package let what: String
    }

    /// `api/sessions`: `{"sessions": [...]}`, the live ones and the last ones that ended, each with
    /// its summary (served, recorded, misses with their nearest recordings, unused recordings)
    /// and its journal; `cassette ui` has none (`json` nil).
    package static func sessionsAnswer(_ json: JSONValue?) -> ProxyAnswer {
        let sessions = json ?? ["sessions": [], "live": false]
        return page(200, contentType: "application/json; charset=utf-8", body: Data((sessions.compactJSON + "\n").utf8))
    }

    private static func json(_ make: () async throws -> JSONValue) async -> ProxyAnswer {
        do {
            let value = try await make()
            return page(200, contentType: "application/json; charset=utf-8", body: Data((value.compactJSON + "\n").utf8))
        } catch let missing as NotFound {
            return error(404, "not_found", "the store has no \(missing.what) \(missing.id); it may have been deleted")
        } catch let store as CassetteStoreError {
            return error(500, "store_failed", store.message)
        } catch {
            return Self.error(500, "ui_failed", "\(error)")
        }
    }

    /// Every UI answer carries the policy: no inline script, no eval, no other origin.
    package static func page(_ status: Int, contentType: String, body: Data) -> ProxyAnswer {
        var fields = HTTPFields()
        fields[.contentType] = contentType
        fields[.contentSecurityPolicy] = UIAssets.contentSecurityPolicy
        fields[.xContentTypeOptions] = "nosniff"
        fields[.cacheControl] = "no-store"
        fields[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        return ProxyAnswer(statusCode: status, headerFields: fields, body: body, source: .endpoint)
    }

    package static func error(_ status: Int, _ code: String, _ message: String) -> ProxyAnswer {
        let body = JSONValue.object(["error": .string(code), "message": .string(message)]).compactJSON + "\n"
        return page(status, contentType: "application/json; charset=utf-8", body: Data(body.utf8))
    }

    package static func redirect(to location: String) -> ProxyAnswer {
        var answer = page(302, contentType: "text/plain; charset=utf-8", body: Data("see \(location)\n".utf8))
        if case .fields(let status, var fields) = answer.head {
            fields[.location] = location
            answer.head = .fields(statusCode: status, fields)
        }
        return answer
    }
}
