import CassetteKernel
import CassetteServing
import Foundation
import Synchronization
import WellPlateCore

/// Stores one conversation as it passes: the handshake once the upstream has switched, then the
/// messages in batches (what arrived while the previous batch was being written goes in the next
/// transaction), then its end. The relay only appends under a lock, on the event loop; one task
/// does the writing, on the store's own queue. A conversation whose end never came stays marked
/// `cut` in the store with every message appended before.
package final class ConversationRecorder: Sendable {
    private struct State {
        package var conversation: Conversation
        package var pending: [ConversationMessage] = []
        package var end: ConversationEnd?
        /// Values found in the handshake and earlier messages, scrubbed from later ones.
        package var secrets: SecretValues
        /// When the upstream switched: offsets count from it.
        package var opened = ContinuousClock.now
        /// The sides whose close frame has passed.
        package var closed: Set<ConversationSide> = []
    }

    private let state: Mutex<State>
    private let wake: AsyncStream<Void>.Continuation
    private let stream: AsyncStream<Void>
    private let keyer: ReplayKeyer
    private let store: CassetteStore
    private let log: ProxyLog
    private let writers: ConversationWriters

    package init(store: CassetteStore, conversation: Conversation, secrets: SecretValues, keyer: ReplayKeyer, log: ProxyLog, writers: ConversationWriters) {
        state = Mutex(State(conversation: conversation, secrets: secrets))
        self.keyer = keyer
        self.store = store
        self.log = log
        self.writers = writers
        (stream, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// The upstream has just switched (called on its event loop before its first frame can be
    /// read): offsets count from now. An upstream may push at once, before `start` runs.
    package func upstreamSwitched() {
        let now = ContinuousClock.now
        state.withLock { $0.opened = now }
    }

    /// The upstream switched with `subprotocol` and `extensions`: the conversation is stored from now on.
    package func start(subprotocol: String?, extensions: String?) {
        let conversation = state.withLock { state in
            state.conversation.subprotocol = subprotocol
            state.conversation.extensions = extensions
            return state.conversation
        }
        writers.run { [self] in
            do {
                let stored = try await store.beginConversation(conversation)
                guard let id = stored.id else { return }
                var position = 0
                var ended = false
                for await _ in stream {
                    (position, ended) = try await drain(id: id, position: position, ended: ended)
                }
                _ = try await drain(id: id, position: position, ended: ended)
            } catch {
                log.error("the WebSocket conversation \(conversation.url) could not be stored completely: \(error)")
            }
        }
    }

    /// The upstream refused: nothing is stored.
    package func abandon() {
        wake.finish()
    }

    /// Writes what waits; returns the next position and whether the end is written.
    private func drain(id: Int64, position: Int, ended: Bool) async throws -> (Int, Bool) {
        let (batch, end) = state.withLock { state in
            defer { state.pending.removeAll(keepingCapacity: true) }
            return (state.pending, state.end)
        }
        try await store.appendMessages(batch, toConversation: id, from: position)
        guard let end, !ended else { return (position + batch.count, ended) }
        try await store.endConversation(id, end)
        return (position + batch.count, true)
    }

    /// Adds one message, redacted as it will be stored (a close frame's reason too).
    package func add(_ side: ConversationSide, _ kind: ConversationMessage.Kind, _ payload: Data, fragments: [Int]) {
        let now = ContinuousClock.now
        state.withLock { state in
            let elapsed = now - state.opened
            let offset = max(0, Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
            let stored: Data
            switch kind {
            case .text, .binary: stored = keyer.redactedMessage(payload, secrets: &state.secrets)
            case .close: stored = keyer.redactedClose(payload, secrets: &state.secrets)
            case .ping, .pong: stored = payload
            }
            state.pending.append(ConversationMessage(direction: side, kind: kind, payload: stored, fragments: fragments, offsetMilliseconds: offset))
        }
        wake.yield()
    }

    /// Records how the conversation ended (the first end reported wins). The writer finishes
    /// once the close handshake is complete (both sides' close frames passed) or the connection
    /// is gone: the answer to a close is part of the conversation however late it comes (a
    /// writer that stopped at the first close kept the answer only when it came quickly enough).
    package func finish(_ end: ConversationEnd) {
        let over = state.withLock { state in
            if state.end == nil {
                if case .closed(let side, let code, let reason) = end, !reason.isEmpty {
                    let redacted = keyer.redactedMessage(Data(reason.utf8), secrets: &state.secrets)
                    state.end = .closed(by: side, code: code, reason: String(decoding: redacted, as: UTF8.self))
                } else {
                    state.end = end
                }
            }
            guard case .closed(let side, _, _) = end else { return true }
            state.closed.insert(side)
            return state.closed.count == 2
        }
        wake.yield()
        if over { wake.finish() }
    }
}
