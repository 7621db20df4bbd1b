import CassetteKernel
import CassetteServing
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOWebSocket
import WellPlateCore

/// WebSocket conversations on one listener: whether a handshake is replayed from the cassette,
/// relayed to the upstream and recorded, relayed only, or declined (then it is an ordinary HTTP
/// request: an upstream's refusal is recorded and replayed as one), decided by the serving policy
/// as for any request. It offers `NIOWebSocketServerUpgrader` as a protocol switch of the kernel
/// (`WebSocketModule`).
///
/// A class: every listener's handler holds it in its parts, and the handler asks it of each
/// request's head (a struct with the settings inside was copied for every request, `perf`).
package final class WebSocketService: ConversationServing {
    /// The listener it serves conversations on: its cassette, keys, settings, log, journal, and
    /// the main port's sessions (with its position and upstream, as `ServingRoute` routes them).
    package let served: ServingListener

    package init(_ served: ServingListener) {
        self.served = served
    }

    /// The service a handshake goes to: on the main port, the session's for `X-Cassette-Session`
    /// (its conversations, recorder and journal, as `ProxyRouter` sends the session's requests);
    /// `nil` for a session that is not live, whose handshake then goes on as an HTTP request
    /// (and gets `404 unknown_session`).
    package func serving(_ head: HTTPRequestHead, on eventLoop: any EventLoop) -> WebSocketService? {
        switch ServingRoute.session(for: head, sessions: served.sessions, listener: served.listener, origin: served.upstreamOrigin, on: eventLoop) {
        case .none: self
        case .live(let route): route.parts.conversations.lazy.compactMap { $0 as? WebSocketService }.first
        case .unknown: nil
        }
    }

    package var keyer: ReplayKeyer { served.session.keyer }

    /// A conversation to keep in the session's journal; `nil` off a session.
    package func newJournalConversation() -> JournalConversation? {
        served.journal.map { _ in JournalConversation() }
    }

    /// Puts `conversation` in the session's journal, its handshake (`head`) answered `101` as `source`.
    package func addToJournal(_ conversation: JournalConversation, head: HTTPRequestHead, source: SessionJournal.Source, started: NIODeadline) {
        served.journal?.addConversation(
            conversation, origin: served.log.targetPrefix.isEmpty ? nil : served.log.targetPrefix, target: keyer.logTarget(of: head), key: key(of: head),
            source: source, started: started)
    }

    /// What a handshake gets.
    package enum Plan {
        /// Replay the recorded conversation, from its start.
        case replay(MultiplexedReplay)
        /// Relay to the upstream; `records`: and store the conversation.
        case relay(records: Bool)
        /// Not taken: answered as an ordinary HTTP request.
        case decline
    }

    /// The handshake's target as the log shows it: with the upstream's origin first on a
    /// multi-host or forward proxy, as its HTTP lines are.
    package func logTarget(of head: HTTPRequestHead) -> String {
        let target = keyer.logTarget(of: head)
        return served.log.targetPrefix.isEmpty || !target.hasPrefix("/") ? target : served.log.targetPrefix + target
    }

    package func key(of head: HTTPRequestHead) -> String? {
        guard let target = try? served.requestBuilder.upstreamTarget(head.uri) else { return nil }
        return keyer.key(method: .get, target: target, contentType: nil, body: nil, secretHeaders: keyer.secretHeaders(of: head)).rawValue
    }

    package func plan(for head: HTTPRequestHead) -> Plan {
        guard head.method == .GET, let key = key(of: head) else { return .decline }
        switch served.session.options.policy.step(for: key, in: served.conversations) {
        case .replay(let orPassthrough):
            if served.conversations.contains(key) {
                guard subprotocolRefusal(head, recorded: served.conversations.peek(key)) == nil, let replay = served.conversations.take(key) else {
                    return .decline
                }
                return .replay(replay)
            }
            return orPassthrough && served.settings.upstream != nil ? .relay(records: false) : .decline
        case .record:
            return served.settings.upstream != nil ? .relay(records: true) : .decline
        }
    }

    package var recorded: RecordedConversations { served.conversations }

    package var answersDeclinedHandshakesOverHTTP: Bool { true }

    /// The refusal of a handshake as its head comes, by the service it goes to (a session's on the main port).
    package func refusal(for head: HTTPRequestHead, on eventLoop: any EventLoop) -> ProxyAnswer? {
        serving(head, on: eventLoop)?.refusal(for: head)
    }

    /// The answer to a handshake whose recorded subprotocol the client does not offer: a 400
    /// that names it. `nil` when there is nothing to refuse.
    package func refusal(for head: HTTPRequestHead) -> ProxyAnswer? {
        guard served.session.options.policy.replaysRecordings, let key = key(of: head) else { return nil }
        return subprotocolRefusal(head, recorded: served.conversations.peek(key))
    }

    private func subprotocolRefusal(_ head: HTTPRequestHead, recorded: Conversation?) -> ProxyAnswer? {
        guard let recorded, let subprotocol = recorded.subprotocol else { return nil }
        let offered = Self.offeredSubprotocols(head)
        guard !offered.contains(subprotocol) else { return nil }
        let list = offered.isEmpty ? "none" : offered.joined(separator: ", ")
        return .error(
            400, code: "websocket_subprotocol",
            message:
                "the recorded conversation used subprotocol \"\(subprotocol)\" and the client offered \(list); offer \"\(subprotocol)\" in Sec-WebSocket-Protocol or record again"
        )
    }

    package static func offeredSubprotocols(_ head: HTTPRequestHead) -> [String] {
        head.headers[canonicalForm: "sec-websocket-protocol"].map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The switch that offers WebSocket upgrades to each connection of the listener.
    package var protocolSwitch: ProtocolSwitches.Switch {
        let service = self
        return ProtocolSwitches.Switch(
            makeUpgraders: { [WebSocketUpgrade(service: service).upgrader()] }, isDecline: { $0 is NIOWebSocketUpgradeError })
    }
}
