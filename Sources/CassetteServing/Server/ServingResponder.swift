import CassetteKernel
import Foundation
import NIOCore
import NIOHTTP1
import WellPlateCore
import WellPlateNetworking

/// What the connections of one listener serving a cassette are given, each part with one job,
/// and the decisions the kernel leaves to serving: which session or forward host a request is
/// for, whether it replays on the fast path, and how a complete request is answered (replayed,
/// forwarded, refused). A class, made once per listener: a request hands on one reference instead
/// of copying a few dozen (as a struct it was copied per request, about 3% of a replay proxy's
/// samples in `perf`).
package final class ServingResponder: Sendable {
    /// Set for a replay-only proxy, which answers every request on the event loop.
    package let replayer: ProxyReplayer?
    /// Answers requests that may go upstream, in a task.
    package let responder: ProxyResponder
    package let requestBuilder: ProxyRequestBuilder
    package let writer: AnswerWriter
    package let maxBodySize: Int
    /// The main port's sessions (`/__cassette/sessions`, `X-Cassette-Session`); `nil` on a
    /// session's own port.
    package let sessions: SessionRegistry?
    /// The listener's position among the proxy's (one per upstream): a request routed to a
    /// session by `X-Cassette-Session` is served as the session's listener for the same upstream.
    package let listener: Int
    /// `scheme://host[:port]` of the upstream this listener stands in for: a session
    /// laid out in another order still routes a request to its listener for the same host.
    package let upstreamOrigin: String?
    /// `--sessions-only`: the main port answers only requests for a session and the
    /// endpoints; its own cassette is not served.
    package let sessionsOnly: Bool
    /// The control endpoints of this listener, as the modules registered them.
    package let controls: ControlTable
    /// Conversations over the protocol switches the modules registered (WebSocket), where the
    /// listener offers them: a handshake its upgrader declined is an ordinary request, or
    /// refused when the client does not offer what was recorded.
    package let conversations: [any ConversationServing]
    /// What routing needs to know of a connection with these parts.
    package let routeContext: RouteContext
    /// Set where a plain request (`ProxyReplayer.isPlain`) can only be replayed: a replay-only
    /// listener that is not `--sessions-only`. Such a request skips the state machine and routing.
    package let plainReplayer: ProxyReplayer?
    /// On a forward proxy's own listener: the responder of each absolute-form request's host.
    package let hosts: (any HostRouting)?
    /// The HTTP/2 stream switches the modules registered on this listener (gRPC): a call on the
    /// main port for a session (`X-Cassette-Session`) goes to the session's switch.
    package let streamSwitches: HTTP2StreamSwitches

    package init(
        replayer: ProxyReplayer?, responder: ProxyResponder, requestBuilder: ProxyRequestBuilder, writer: AnswerWriter, maxBodySize: Int,
        controls: ControlTable, sessions: SessionRegistry? = nil, listener: Int = 0, upstreamOrigin: String? = nil, sessionsOnly: Bool = false,
        conversations: [any ConversationServing] = [], hosts: (any HostRouting)? = nil, streamSwitches: HTTP2StreamSwitches = .none
    ) {
        self.replayer = replayer
        self.responder = responder
        self.requestBuilder = requestBuilder
        self.writer = writer
        self.maxBodySize = maxBodySize
        self.controls = controls
        self.sessions = sessions
        self.listener = listener
        self.upstreamOrigin = upstreamOrigin
        self.sessionsOnly = sessionsOnly
        self.conversations = conversations
        self.hosts = hosts
        self.streamSwitches = streamSwitches
        routeContext = RouteContext(hasSessions: sessions != nil, sessionsOnly: sessionsOnly, replaysOnly: replayer != nil)
        // The forward listener's own requests are its hosts' (absolute form): none is plain there.
        plainReplayer = sessionsOnly || hosts != nil ? nil : replayer
    }

    /// The same listener on a forward proxy, answering absolute-form requests with `hosts`.
    package func routingHosts(_ hosts: any HostRouting) -> ServingResponder {
        ServingResponder(
            replayer: replayer, responder: responder, requestBuilder: requestBuilder, writer: writer, maxBodySize: maxBodySize, controls: controls,
            sessions: sessions, listener: listener, upstreamOrigin: upstreamOrigin, sessionsOnly: sessionsOnly, conversations: conversations,
            hosts: hosts, streamSwitches: streamSwitches)
    }
}

/// What a forward proxy's listener routes by host (`CassetteForward`'s `ForwardRouter`).
package protocol HostRouting: Sendable {
    /// The responder of the host an absolute-form request (`GET http://host/path`) names; `nil`
    /// for a `/path` target, which is the listener's own.
    func responder(for head: HTTPRequestHead) -> ServingResponder?
    /// The responder serving `origin` (`https://host:port`): a session's, for a request routed
    /// to it by `X-Cassette-Session` on the main forward proxy.
    func responder(origin: String) -> ServingResponder
}

/// A conversation protocol served on a listener (WebSocket), as serving needs to know it.
package protocol ConversationServing: AnyObject, Sendable {
    /// The listener's recorded conversations, with their replay counts.
    var recorded: RecordedConversations { get }
    /// Whether a handshake of this protocol that reaches the kernel's handler (the upgrader
    /// declined it) is an HTTP request to answer rather than an upgrade to refuse.
    var answersDeclinedHandshakesOverHTTP: Bool { get }

    /// The answer to a handshake refused as its head comes (the recorded subprotocol not
    /// offered); `nil` when it goes on.
    func refusal(for head: HTTPRequestHead, on eventLoop: any EventLoop) -> ProxyAnswer?
}

/// How a cassette is served as a forward proxy (`CassetteForward`): the proxy's own listener, and
/// each of its sessions, which is a forward proxy of its own for its cassette.
package protocol ForwardListening: Sendable {
    /// The listener serving `served`: its endpoints (with `sessions`, the main port's) and, per
    /// host, a pipeline recording or replaying it. `journal` and `logLabel` are a session's.
    func listener(
        served: ServedCassette, maker: ReplayAnswerMaker, sessions: SessionRegistry?, journal: SessionJournal?, logLabel: String?
    ) -> ForwardListener
}

/// A forward proxy's listener: how its connections are set up and how it routes by host.
package struct ForwardListener: Sendable {
    package let pipeline: any ConnectionPipeline
    package let hosts: any HostRouting
    /// The listener's own parts: its endpoints, and the refusal of `/path` targets.
    package let base: ServingResponder
    /// The certificate clients must trust.
    package let authorityPath: String

    package init(pipeline: any ConnectionPipeline, hosts: any HostRouting, base: ServingResponder, authorityPath: String) {
        self.pipeline = pipeline
        self.hosts = hosts
        self.base = base
        self.authorityPath = authorityPath
    }
}
