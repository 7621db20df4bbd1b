import Foundation

/// A recorded conversation replayed turn by turn, as decisions without side effects: the server
/// messages recorded before the client's first message go out on open; each live client message
/// is matched against the next recorded client message, and on a match the server messages that
/// followed it are sent, each after its recorded delay from the event before it; the close
/// happens where the recording's did. The proxy's handler performs the actions in order.
package struct ConversationReplay: Sendable {
    package enum Action: Sendable, Equatable {
        /// Send a server message (text, binary or ping) once `delay` has passed since the action before.
        case send(ConversationMessage, delayMilliseconds: Double)
        /// Send a close frame with `code` (none: `nil`) and `reason`, then close.
        case close(code: Int?, reason: String, delayMilliseconds: Double)
        /// Close the connection without a close frame, as the recorded server dropped it.
        case drop(delayMilliseconds: Double)
    }

    /// What a client message that is not the recorded one gets.
    package struct Mismatch: Sendable, Equatable, Error {
        /// The recorded client message expected next; `nil` when the recording has no more.
        package let expected: ConversationMessage?
        /// The recorded operation nearest to a live one that matched none (`subscription Countdown`):
        /// `expected` opens it.
        package var operation: String? = nil
        /// The close reason naming what was expected, at most 123 bytes (RFC 6455 §5.5).
        package var reason: String {
            let text =
                expected.map { message in
                    operation.map { "no recorded operation matches; nearest: \($0): \(message.preview(limit: 100))" }
                        ?? "expected \(message.kind.rawValue) message: \(message.preview(limit: 100))"
                } ?? "the recording has no more client messages"
            return Self.cut(text, toBytes: 123)
        }

        static func cut(_ text: String, toBytes limit: Int) -> String {
            var result = ""
            var used = 0
            for character in text {
                let size = String(character).utf8.count
                guard used + size <= limit else { break }
                result.append(character)
                used += size
            }
            return result
        }
    }

    package let conversation: Conversation
    /// The values clients choose and the server echoes (request ids), found in the recording.
    package let echoes: EchoedValues
    /// Each echoed path's recorded values and the live values they became, from the client
    /// messages matched so far: replies (and later pushes) carry the live ones.
    private var substitutions: [[JSONPathComponent]: [String: Data]] = [:]
    /// The next recorded message not yet replayed or matched.
    private(set) var position = 0
    /// The recorded offset of the last event replayed or matched: delays count from it.
    private var lastOffset = 0.0
    /// Whether the replay has ended (closed, dropped or failed).
    package private(set) var isFinished = false

    /// Whether a recorded client message is still to come.
    package var awaitsClient: Bool { !isFinished && position < conversation.messages.count }

    package init(_ conversation: Conversation) {
        self.init(conversation, echoes: EchoedValues(conversation))
    }

    /// A replay of `conversation` whose echoed values were worked out before (`RecordedConversations`
    /// keeps them for every connection that replays it).
    package init(_ conversation: Conversation, echoes: EchoedValues) {
        self.conversation = conversation
        self.echoes = echoes
    }

    /// The actions on open: the server messages recorded before the client's first message.
    package mutating func start() -> [Action] {
        var actions: [Action] = []
        advance(into: &actions)
        return actions
    }

    /// The actions answering the client's text or binary message `payload`; `matches` compares
    /// the live payload with a recorded one (`ReplayKeyer.messageMatches`), both with their
    /// echoed values masked. A mismatch ends the replay.
    package mutating func receive(
        kind: ConversationMessage.Kind, payload: Data, matches: (_ live: Data, _ recorded: Data) -> Bool
    ) throws(Mismatch)
        -> [Action]
    {
        var actions: [Action] = []
        try receive(kind: kind, payload: payload, into: &actions, matches: matches)
        return actions
    }

    /// `receive(kind:payload:matches:)`, its actions appended to `actions`: a connection's queue
    /// takes them without an array made for every message.
    package mutating func receive(
        kind: ConversationMessage.Kind, payload: Data, into actions: inout [Action], matches: (_ live: Data, _ recorded: Data) -> Bool
    ) throws(Mismatch) {
        guard !isFinished else { return }
        let messages = conversation.messages
        while position < messages.count, messages[position].direction == .client, !messages[position].isData, messages[position].kind != .close {
            position += 1
        }
        guard position < messages.count, messages[position].direction == .client, messages[position].kind != .close else {
            isFinished = true
            throw Mismatch(expected: nil)
        }
        let expected = messages[position]
        let echoed = kind == .text && !echoes.isEmpty
        guard expected.kind == kind, echoed ? matches(echoes.masked(payload), echoes.masked(expected.payload)) : matches(payload, expected.payload) else {
            isFinished = true
            throw Mismatch(expected: expected)
        }
        if echoed {
            substitutions.merge(echoes.substitutions(recorded: expected.payload, live: payload)) { old, new in old.merging(new) { $1 } }
        }
        position += 1
        lastOffset = expected.offsetMilliseconds
        advance(into: &actions)
    }

    /// The server's messages from `position` up to the next client message, then the recorded
    /// end when the server ended it there.
    private mutating func advance(into actions: inout [Action]) {
        let messages = conversation.messages
        while position < messages.count {
            let message = messages[position]
            if message.direction == .client {
                // A client close, ping or pong is the client's to send again; data waits for it.
                if message.isData || message.kind == .close { return }
                position += 1
                continue
            }
            position += 1
            let delay = max(0, message.offsetMilliseconds - lastOffset)
            switch message.kind {
            case .text, .binary, .ping:
                lastOffset = message.offsetMilliseconds
                var sent = message
                if message.kind == .text && !substitutions.isEmpty { sent.payload = echoes.substituted(message.payload, substitutions) }
                actions.append(.send(sent, delayMilliseconds: delay))
            case .pong:
                // It answered a recorded ping; live pings get live pongs.
                continue
            case .close:
                isFinished = true
                if case .closed(.server, let code, let reason) = conversation.end {
                    actions.append(.close(code: code, reason: reason, delayMilliseconds: delay))
                } else {
                    let (code, reason) = Self.closeFields(message.payload)
                    actions.append(.close(code: code, reason: reason, delayMilliseconds: delay))
                }
                return
            }
        }
        if case .dropped(.server, _) = conversation.end {
            isFinished = true
            actions.append(.drop(delayMilliseconds: 0))
        }
    }

    /// The code and reason of a close frame's payload.
    package static func closeFields(_ payload: Data) -> (code: Int?, reason: String) {
        guard payload.count >= 2 else { return (nil, "") }
        let bytes = [UInt8](payload)
        return (Int(bytes[0]) << 8 | Int(bytes[1]), String(decoding: bytes[2...], as: UTF8.self))
    }
}
