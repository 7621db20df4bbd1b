import CassetteKernel
import Foundation
import NIOCore
import NIOPosix
import Synchronization
import WellPlateCore
import WellPlateNetworking

/// One live session (`POST /__cassette/sessions`): a cassette opened in its own mode, with its
/// own sequence positions and journal, served on a listener of its own and, through
/// `X-Cassette-Session`, on the main port.
package final class ProxySession: Sendable {
    /// One of its listeners: one per upstream of the proxy, in the proxy's order.
    package struct Listener: Sendable {
        /// The upstream it stands in for (redacted for showing); `nil` when the cassette does not
        /// say where it was recorded from.
        package let upstream: String?
        /// `http://HOST:PORT`.
        package let baseURL: String
        /// What its connections are given; the main port's listener for the same upstream
        /// answers `X-Cassette-Session` requests with them too.
        package let parts: ServingResponder

        package var origin: String? { parts.upstreamOrigin }
    }

    package let id: String
    package let cassette: String
    /// The mode the cassette was opened in (`none` with `--on-miss record` opens as `missing`).
    package let mode: RecordMode
    package let listeners: [Listener]
    package let session: CassetteSession
    /// Its cassette's WebSocket conversations and gRPC calls, shared by its listeners.
    package let conversations: RecordedConversations
    package let journal: SessionJournal
    package let server: ProxyServer
    /// A forward proxy's session: the hosts it serves, for `X-Cassette-Session` requests that
    /// reach the main forward proxy (in a tunnel or as absolute-form requests).
    package let forwardRouter: (any HostRouting)?
    /// Where requests that reach it through the main port go, per listener and event loop, each
    /// with replay keys and slots of its own (its own listeners keep theirs, `ProxyServer`): per
    /// listener because the same target keys differently on two hosts. Made once: a route is
    /// handed to every such request, and a class is one retain to hand on.
    private let routes: [[ObjectIdentifier: ServingRoute]]
    /// False from the moment it begins closing: a route handed out before (`ServingRoute`) checks
    /// this instead of asking the registry again.
    private let liveness = SessionLiveness()

    package var isLive: Bool { liveness.isLive }

    /// `http://HOST:PORT` of its first (on a single-upstream proxy, only) listener.
    package var baseURL: String { listeners[0].baseURL }

    package init(
        id: String, cassette: String, mode: RecordMode, listeners: [Listener], session: CassetteSession, journal: SessionJournal,
        server: ProxyServer, group: MultiThreadedEventLoopGroup, forwardRouter: (any HostRouting)? = nil, conversations: RecordedConversations = .none
    ) {
        self.forwardRouter = forwardRouter
        self.conversations = conversations
        self.id = id
        self.cassette = cassette
        self.mode = mode
        self.listeners = listeners
        self.session = session
        self.journal = journal
        self.server = server
        let liveness = liveness
        routes = listeners.map { listener in
            Dictionary(
                uniqueKeysWithValues: group.makeIterator().map { loop in
                    let cache = NIOLoopBoundBox.makeBoxSendingValue(ReplayTargetCache(), eventLoop: loop)
                    return (ObjectIdentifier(loop), ServingRoute(parts: listener.parts, targetCache: cache, liveness: liveness))
                })
        }
    }

    /// Where a request on the main port's listener `position` for upstream `origin` goes: this
    /// session's listener for the same upstream, else the one in the same position, else the first.
    package func route(listener position: Int, origin: String?, on eventLoop: any EventLoop) -> ServingRoute {
        if let forwardRouter, let origin {
            // Keys of a tunnel's requests are its host's: replay keys of their own for each route.
            return ServingRoute(
                parts: forwardRouter.responder(origin: origin), targetCache: .makeBoxSendingValue(ReplayTargetCache(), eventLoop: eventLoop),
                liveness: liveness)
        }
        let index =
            listeners.count == 1
            ? 0 : origin.flatMap { origin in listeners.firstIndex { $0.origin == origin } } ?? (listeners.indices.contains(position) ? position : 0)
        return routes[index][ObjectIdentifier(eventLoop)]
            ?? ServingRoute(parts: listeners[index].parts, targetCache: .makeBoxSendingValue(ReplayTargetCache(), eventLoop: eventLoop), liveness: liveness)
    }

    /// Empties the journal and starts every sequence again.
    package func reset() {
        session.restart()
        journal.clear()
    }

    /// What the session served so far.
    package var summary: SessionSummary {
        let methods = conversations.grpcKeys
        return SessionSummary(
            journal.tally, unused: session.index.statistics.unusedKeys,
            unusedGRPCMethods: methods.isEmpty ? nil : conversations.untakenKeys.filter { methods.contains($0) })
    }

    /// Stops its listener, letting requests in flight finish (and go into the journal).
    package func close() async {
        liveness.end()
        await server.shutdown()
    }

    /// `{"upstream", "baseURL"}` of each listener, in the proxy's upstream order.
    package var listenersJSON: JSONValue {
        .array(listeners.map { .object(["upstream": $0.upstream.map(JSONValue.string) ?? .null, "baseURL": .string($0.baseURL)]) })
    }

    /// `{"id", "baseURL", "listeners", "cassette", "mode", "requests", "idleSeconds"}`.
    package var json: JSONObject {
        let idle = journal.idleTime
        return [
            "id": .string(id),
            "baseURL": .string(baseURL),
            "listeners": listenersJSON,
            "cassette": .string(cassette),
            "mode": .string(mode.rawValue),
            "requests": .integer(Int64(journal.count)),
            "idleSeconds": .number((Double(idle.nanoseconds) / 1e7).rounded() / 100),
        ]
    }
}

/// Whether a session still serves, shared by the session and its routes (a route kept by a
/// connection must not keep the session itself alive).
package final class SessionLiveness: Sendable {
    private let live = Atomic(true)

    package var isLive: Bool { live.load(ordering: .acquiring) }

    package func end() {
        live.store(false, ordering: .releasing)
    }
}
