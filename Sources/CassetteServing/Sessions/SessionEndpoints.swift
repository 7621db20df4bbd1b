import CassetteKernel
import Foundation
import NIOCore
import NIOHTTP1
import WellPlateCore
import WellPlateNetworking

/// `/__cassette/sessions` on the main port: open, list, inspect, reset and end sessions. Every
/// bad input gets a JSON error with a 4xx status that says what to do, and the proxy goes on.
package enum SessionEndpoints {
    package static let root = ControlNames.sessions

    /// Sessions asked for on a session's own port.
    package static let noSessionsHere = ControlRefusal(
        status: 404, code: "no_sessions_here",
        message: "this port is a session's own; sessions are opened and managed on the main port of `cassette record`, `replay` or `run`")

    /// A path below the sessions' that is none of theirs.
    package static let notASessionEndpoint = ControlRefusal(
        status: 404, code: "not_found",
        message: "that path is not a session endpoint; use \(root), \(root)/ID, \(root)/ID/requests or \(root)/ID/reset")

    package static func unknownSession(_ id: String) -> ProxyAnswer {
        .error(404, code: "unknown_session", message: unknownSessionMessage(id))
    }

    /// A request without `X-Cassette-Session` on the main port of a `--sessions-only` proxy.
    package static func sessionRequired(_ head: HTTPRequestHead) -> ProxyAnswer {
        .error(
            400, code: "session_required",
            message:
                "this proxy serves sessions only (--sessions-only): send \(head.method.rawValue) \(head.uri) to a session's baseURL, or add \(SessionHeader.name): ID; open a session with POST \(root)"
        )
    }

    package static func unknownSessionMessage(_ id: String) -> String {
        "no live session \"\(id)\": it ended, was closed after being idle, or never existed; start one with POST \(root) (GET \(root) lists the live ones)"
    }
}

extension SessionRegistry {
    /// The answer to a request under `/__cassette/sessions`.
    package func answer(head: HTTPRequestHead, body: ByteBuffer?, proxyBase: String) async -> ProxyAnswer {
        do {
            return try await routed(head: head, body: body, proxyBase: proxyBase)
        } catch {
            return error.answer
        }
    }

    private func routed(head: HTTPRequestHead, body: ByteBuffer?, proxyBase: String) async throws(ProxyRequestError) -> ProxyAnswer {
        let components = URLComponents(string: head.uri)
        let path = components?.percentEncodedPath ?? head.uri
        let query = components?.queryItems ?? []
        let rest = path.dropFirst(SessionEndpoints.root.count).split(separator: "/").map(String.init)
        let method = head.method == .HEAD ? .GET : head.method
        switch (rest.count, rest.last) {
        case (0, _):
            switch method {
            case .GET:
                try Self.allow([], in: query)
                return .json(200, listJSON(), source: .endpoint)
            case .POST:
                try Self.allow([], in: query)
                let request = try SessionOpening(body: body)
                let session = try await open(cassette: request.cassette, requestedMode: request.mode, proxyBase: proxyBase)
                var created: JSONObject = ["id": .string(session.id), "baseURL": .string(session.baseURL), "listeners": session.listenersJSON]
                created["cassette"] = .string(session.cassette)
                created["mode"] = .string(session.mode.rawValue)
                return .json(201, .object(created), source: .endpoint)
            default:
                throw Self.notRouted(path)
            }
        case (1, let id?):
            switch method {
            case .GET:
                try Self.allow([], in: query)
                return .json(200, .object(try live(id, touching: false).json), source: .endpoint)
            case .DELETE:
                try Self.allow(["strict"], in: query)
                let strict = try Self.flag("strict", in: query)
                return try await endAnswer(id, strict: strict)
            default:
                throw Self.notRouted(path)
            }
        case (2, "requests"):
            guard method == .GET else { throw Self.notRouted(path) }
            try Self.allow(["method", "path", "host"], in: query)
            let filter = SessionJournal.Filter(
                method: Self.value("method", in: query), path: Self.value("path", in: query), host: Self.value("host", in: query))
            return .json(200, try live(rest[0]).journal.json(filter: filter), source: .endpoint)
        case (2, "reset"):
            guard method == .POST else { throw Self.notRouted(path) }
            try Self.allow([], in: query)
            let session = try live(rest[0])
            session.reset()
            return .json(200, .object(session.json), source: .endpoint)
        default:
            throw Self.notRouted(path)
        }
    }

    /// The live session `id`; reading its journal or resetting it counts as its activity, looking at it does not.
    private func live(_ id: String, touching: Bool = true) throws(ProxyRequestError) -> ProxySession {
        guard let session = session(id, touching: touching) else {
            throw ProxyRequestError(status: 404, code: "unknown_session", message: SessionEndpoints.unknownSessionMessage(id))
        }
        return session
    }

    private func endAnswer(_ id: String, strict: Bool) async throws(ProxyRequestError) -> ProxyAnswer {
        guard let (session, summary) = await end(id) else {
            throw ProxyRequestError(status: 404, code: "unknown_session", message: SessionEndpoints.unknownSessionMessage(id))
        }
        var json: JSONObject = ["id": .string(session.id), "cassette": .string(session.cassette)]
        for (name, value) in summary.json() { json[name] = value }
        guard strict, !summary.missed.isEmpty else { return .json(200, .object(json), source: .endpoint) }
        let count = summary.missed.reduce(0) { $0 + $1.count }
        json["error"] = "session_missed"
        json["message"] = .string(
            "\(count) request(s) in session \(session.id) had no recording in cassette \"\(session.cassette)\": \(summary.missed.map(\.key).joined(separator: ", ")); record them (mode \"missing\") or fix the requests"
        )
        return .json(409, .object(json), source: .endpoint)
    }

    private func listJSON() -> JSONValue {
        let sessions = live
        return [
            "sessions": .array(sessions.map { .object($0.json) }),
            "count": .integer(Int64(sessions.count)),
            "maxSessions": .integer(Int64(maxSessions)),
        ]
    }

    /// What the control table's routes (`ServingControls`) never send here.
    private static func notRouted(_ path: String) -> ProxyRequestError {
        ProxyRequestError(status: 404, code: "not_found", message: SessionEndpoints.notASessionEndpoint.message)
    }

    /// Refuses query parameters the endpoint does not take, so a misspelt filter is not ignored.
    private static func allow(_ names: Set<String>, in query: [URLQueryItem]) throws(ProxyRequestError) {
        guard let unknown = query.first(where: { !names.contains($0.name) }) else { return }
        let sorted = names.sorted()
        let listed = sorted.count > 2 ? sorted.dropLast().joined(separator: ", ") + " and " + sorted.last! : sorted.joined(separator: " and ")
        let accepted = names.isEmpty ? "this endpoint takes none" : "use " + listed
        throw ProxyRequestError(status: 400, code: "unknown_parameter", message: "unknown query parameter \"\(unknown.name)\"; \(accepted)")
    }

    private static func value(_ name: String, in query: [URLQueryItem]) -> String? {
        query.last { $0.name == name }?.value.flatMap { $0.isEmpty ? nil : $0 }
    }

    private static func flag(_ name: String, in query: [URLQueryItem]) throws(ProxyRequestError) -> Bool {
        guard let item = query.last(where: { $0.name == name }) else { return false }
        switch item.value?.lowercased() {
        case nil, "", "true", "1": return true
        case "false", "0": return false
        case let other?:
            throw ProxyRequestError(status: 400, code: "bad_parameter", message: "?\(name)=\(other) is not a Boolean; use \(name)=true or \(name)=false")
        }
    }
}
