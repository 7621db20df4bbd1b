import CassetteKernel
import Foundation
import Synchronization
import WellPlateCore

/// A WebSocket conversation as a session's journal shows it, kept up to date while it goes on:
/// the messages the client sent and received (text and binary), how many of the client's
/// matched the recording on replay, the miss that ended it, and how it ended. Its journal entry
/// holds it and reads it when the journal is asked for.
///
/// A class with a lock: the conversation's event loop writes it, the control endpoint's task reads it.
package final class JournalConversation: Sendable {
    package struct Miss: Sendable, Equatable {
        /// The recorded client message expected next (kind and preview), or what the recording lacked.
        package let expected: String
        /// The client's message (kind and preview).
        package let received: String

        package init(expected: String, received: String) {
            self.expected = expected
            self.received = received
        }
    }

    package struct State: Sendable, Equatable {
        package var sent = 0
        package var received = 0
        package var matched = 0
        package var miss: Miss?
        /// `nil` while it is open.
        package var end: ConversationEnd?
        /// The operations the client opened on it, in order (`subscription Countdown`, `rpc add`).
        package var operations: [String] = []
    }

    private let state = Mutex(State())

    package init() {}

    package var current: State { state.withLock { $0 } }

    /// A text or binary message from `side`; other kinds are not counted.
    package func add(_ side: ConversationSide, _ kind: ConversationMessage.Kind, matched: Bool = false) {
        guard kind == .text || kind == .binary else { return }
        state.withLock { state in
            if side == .client {
                state.sent += 1
                if matched { state.matched += 1 }
            } else {
                state.received += 1
            }
        }
    }

    /// The client opened the operation `label` (GraphQL over WebSocket, JSON-RPC, a Socket.IO event with an ack).
    package func opened(_ label: String) {
        state.withLock { $0.operations.append(label) }
    }

    /// The client message that was not the recorded one (it counts as sent).
    package func missed(_ miss: Miss) {
        state.withLock { state in
            state.sent += 1
            state.miss = miss
        }
    }

    /// How it ended; the first end reported wins.
    package func finish(_ end: ConversationEnd) {
        state.withLock { state in
            if state.end == nil { state.end = end }
        }
    }

    /// `{"sent", "received", "matched", "missed": {"expected", "received"} | null, "end": "server closed 4000 \"bye\"" | null,
    /// "operations": ["subscription Countdown", ...]}`.
    package var json: JSONValue {
        let state = current
        return [
            "sent": .integer(Int64(state.sent)),
            "received": .integer(Int64(state.received)),
            "matched": .integer(Int64(state.matched)),
            "missed": state.miss.map { ["expected": .string($0.expected), "received": .string($0.received)] } ?? .null,
            "end": state.end.map { .string($0.summary) } ?? .null,
            "operations": .array(state.operations.map(JSONValue.string)),
        ]
    }
}
