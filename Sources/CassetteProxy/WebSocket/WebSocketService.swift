import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOWebSocket
import WellPlateCore

/// WebSocket conversations on one listener: whether a handshake is replayed from the cassette,
/// relayed to the upstream and recorded, relayed only, or declined (then it is an ordinary HTTP
/// request: an upstream's refusal is recorded and replayed as one), decided by the serving policy
/// as for any request. It offers `NIOWebSocketServerUpgrader` through the pipeline's `UpgradeHook`.
///
/// A class: every listener's handler holds it in its parts, and the handler asks it of each
/// request's head (a struct with the settings inside was copied for every request, `perf`).
final class WebSocketService: Sendable {
    let session: CassetteSession
    let conversations: RecordedConversations
    let requestBuilder: ProxyRequestBuilder
    let settings: ProxySettings
    let log: ProxyLog
    /// The proxy's recorders' writing tasks, awaited before its store closes.
    let writers: ConversationWriters
    /// Where a session's conversations go, on a session's listener (and its routes from the main port).
    let journal: SessionJournal?
    /// The main port's sessions: a handshake with `X-Cassette-Session` is the session's. With
    /// `listener` and `upstreamOrigin`, as `ProxyHandler.Parts` route a session's requests.
    let sessions: SessionRegistry?
    let listener: Int
    let upstreamOrigin: String?

    init(
        session: CassetteSession, conversations: RecordedConversations, requestBuilder: ProxyRequestBuilder, settings: ProxySettings,
        log: ProxyLog, writers: ConversationWriters, journal: SessionJournal? = nil, sessions: SessionRegistry? = nil, listener: Int = 0,
        upstreamOrigin: String? = nil
    ) {
        self.session = session
        self.conversations = conversations
        self.requestBuilder = requestBuilder
        self.settings = settings
        self.log = log
        self.writers = writers
        self.journal = journal
        self.sessions = sessions
        self.listener = listener
        self.upstreamOrigin = upstreamOrigin
    }

    /// The service a handshake goes to: on the main port, the session's for `X-Cassette-Session`
    /// (its conversations, recorder and journal, as `ProxyRouter` sends the session's requests);
    /// `nil` for a session that is not live, whose handshake then goes on as an HTTP request
    /// (and gets `404 unknown_session`).
    func serving(_ head: HTTPRequestHead, on eventLoop: any EventLoop) -> WebSocketService? {
        guard let sessions, let id = head.headers.first(name: SessionHeader.name) else { return self }
        guard let route = sessions.route(id, listener: listener, origin: upstreamOrigin, on: eventLoop), route.liveness.isLive else { return nil }
        return route.parts.webSockets
    }

    var keyer: ReplayKeyer { session.keyer }

    /// A conversation to keep in the session's journal; `nil` off a session.
    func newJournalConversation() -> JournalConversation? {
        journal.map { _ in JournalConversation() }
    }

    /// Puts `conversation` in the session's journal, its handshake (`head`) answered `101` as `source`.
    func addToJournal(_ conversation: JournalConversation, head: HTTPRequestHead, source: SessionJournal.Source, started: NIODeadline) {
        journal?.addConversation(
            conversation, origin: log.targetPrefix.isEmpty ? nil : log.targetPrefix, target: keyer.logTarget(of: head), key: key(of: head),
            source: source, started: started)
    }

    /// What a handshake gets.
    enum Plan {
        /// Replay the recorded conversation, from its start.
        case replay(ConversationReplay)
        /// Relay to the upstream; `records`: and store the conversation.
        case relay(records: Bool)
        /// Not taken: answered as an ordinary HTTP request.
        case decline
    }

    /// The handshake's target as the log shows it: with the upstream's origin first on a
    /// multi-host or forward proxy, as its HTTP lines are.
    func logTarget(of head: HTTPRequestHead) -> String {
        let target = keyer.logTarget(of: head)
        return log.targetPrefix.isEmpty || !target.hasPrefix("/") ? target : log.targetPrefix + target
    }

    func key(of head: HTTPRequestHead) -> String? {
        guard let target = try? requestBuilder.upstreamTarget(head.uri) else { return nil }
        return keyer.key(method: .get, target: target, contentType: nil, body: nil, secretHeaders: keyer.secretHeaders(of: head)).rawValue
    }

    func plan(for head: HTTPRequestHead) -> Plan {
        guard head.method == .GET, let key = key(of: head) else { return .decline }
        switch session.options.policy.step(for: key, in: conversations) {
        case .replay(let orPassthrough):
            if conversations.contains(key) {
                guard subprotocolRefusal(head, recorded: conversations.peek(key)) == nil, let replay = conversations.take(key) else {
                    return .decline
                }
                return .replay(replay)
            }
            return orPassthrough && settings.upstream != nil ? .relay(records: false) : .decline
        case .record:
            return settings.upstream != nil ? .relay(records: true) : .decline
        }
    }

    /// The answer to a handshake whose recorded subprotocol the client does not offer: a 400
    /// that names it. `nil` when there is nothing to refuse.
    func refusal(for head: HTTPRequestHead) -> ProxyAnswer? {
        guard session.options.policy.replaysRecordings, let key = key(of: head) else { return nil }
        return subprotocolRefusal(head, recorded: conversations.peek(key))
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

    static func offeredSubprotocols(_ head: HTTPRequestHead) -> [String] {
        head.headers[canonicalForm: "sec-websocket-protocol"].map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The hook that offers WebSocket upgrades to each connection of the listener.
    var hook: UpgradeHook {
        let service = self
        return UpgradeHook(makeUpgraders: { [WebSocketUpgrade(service: service).upgrader()] })
    }
}
