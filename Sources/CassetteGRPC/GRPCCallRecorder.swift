import CassetteKernel
import CassetteServing
import Foundation
import HTTPTypes
import Synchronization
import WellPlateCore

/// Stores one gRPC call as it passes, as `ConversationRecorder` stores a WebSocket conversation:
/// the call is begun at once (so a call the upstream resets, or the recorder's SIGTERM cuts, is
/// kept with what passed, marked `cut`), messages are appended in batches by one writing task on
/// the store's queue, then the response HEADERS, trailers and end. Messages are stored inflated
/// and redacted string field by string field (`ReplayKeyer.redactedGRPCMessage`), re-encoded so
/// their length prefixes fit; the request metadata, response HEADERS and trailers are redacted as
/// an HTTP exchange's headers are (secret names, `set-cookie`'s credential cookies, values seen
/// earlier in the call). The client gets the upstream's bytes unchanged.
final class GRPCCallRecorder: Sendable {
    private struct State {
        var pending: [ConversationMessage] = []
        var responseHeaders: HTTPFields?
        var trailers: HTTPFields?
        var end: ConversationEnd?
        /// When the upstream reset the stream (`GRPCCallHeads.endOffsetMilliseconds`).
        var endOffset: Double?
        /// The secrets found so far (the metadata's, then the messages'), scrubbed from later messages.
        var secrets: SecretValues
        let opened = ContinuousClock.now
    }

    private let state: Mutex<State>
    private let keyer: ReplayKeyer
    private let schema: ProtoSchema
    private let path: String
    private let wake: AsyncStream<Void>.Continuation
    private let stream: AsyncStream<Void>

    /// `call` with its request metadata as sent: it is stored redacted.
    init(store: CassetteStore, call: Conversation, keyer: ReplayKeyer, schema: ProtoSchema, log: ProxyLog, writers: ConversationWriters) {
        self.keyer = keyer
        self.schema = schema
        path = call.url
        let secrets = keyer.redactor.secretValues(headers: call.requestHeaders, learned: keyer.learned)
        state = Mutex(State(secrets: secrets))
        var redacted = call
        redacted.requestHeaders = keyer.redactor.scrub(keyer.redactor.redact(headers: call.requestHeaders), secrets: secrets)
        let stored = redacted
        (stream, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let stream = self.stream
        writers.run { [self] in
            do {
                let begun = try await store.beginConversation(stored)
                guard let id = begun.id else { return }
                var position = 0
                for await _ in stream { position = try await drain(store: store, id: id, position: position) }
                _ = try await drain(store: store, id: id, position: position)
            } catch {
                log.error("the gRPC call \(stored.url) could not be stored completely: \(error)")
            }
        }
    }

    /// Writes what waits; the heads and end once they are known.
    private func drain(store: CassetteStore, id: Int64, position: Int) async throws -> Int {
        let (batch, heads, end) = state.withLock { state in
            defer { state.pending.removeAll(keepingCapacity: true) }
            let heads =
                state.end == nil
                ? nil : GRPCCallHeads(responseHeaders: state.responseHeaders, trailers: state.trailers ?? [:], endOffsetMilliseconds: state.endOffset)
            return (state.pending, heads, state.end)
        }
        try await store.appendMessages(batch, toConversation: id, from: position)
        if let heads { try await store.storeGRPCHeads(heads, conversation: id) }
        if let end { try await store.endConversation(id, end) }
        return position + batch.count
    }

    /// A message (inflated) or, with `kind` `.close` from the client, its half-close.
    func add(_ side: ConversationSide, _ payload: Data, kind: ConversationMessage.Kind = .binary) {
        let now = ContinuousClock.now
        state.withLock { state in
            let offset = Self.milliseconds(from: state.opened, to: now)
            let stored =
                kind == .close
                ? payload
                : keyer.redactedGRPCMessage(
                    payload, schema: schema, path: path, direction: side == .client ? .request : .response, secrets: &state.secrets)
            state.pending.append(ConversationMessage(direction: side, kind: kind, payload: stored, offsetMilliseconds: offset))
        }
        wake.yield()
    }

    func responseHeaders(_ fields: HTTPFields) {
        state.withLock { $0.responseHeaders = Self.redacted(fields, keyer: keyer, secrets: &$0.secrets) }
    }

    /// The call ended with `trailers` (`nil`: without any, `end` says how).
    func finish(trailers: HTTPFields?, end: ConversationEnd) {
        let now = ContinuousClock.now
        state.withLock { state in
            guard state.end == nil else { return }
            state.trailers = trailers.map { Self.redacted($0, keyer: keyer, secrets: &state.secrets) }
            state.end = end
            // Only a reset's moment: trailers follow the last message on replay, as they do live.
            if case .dropped(.server, _?) = end { state.endOffset = Self.milliseconds(from: state.opened, to: now) }
        }
        wake.yield()
        wake.finish()
    }

    /// An offset as stored: milliseconds since the call opened.
    private static func milliseconds(from opened: ContinuousClock.Instant, to now: ContinuousClock.Instant) -> Double {
        let elapsed = now - opened
        return max(0, Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
    }

    /// Response metadata as a response's headers are stored: secret names and credential
    /// cookies redacted, and what the call carried so far scrubbed; what it holds is scrubbed
    /// from the messages after it.
    private static func redacted(_ fields: HTTPFields, keyer: ReplayKeyer, secrets: inout SecretValues) -> HTTPFields {
        let result = keyer.redactor.redactCollectingSecrets(responseHeaders: fields, body: Data(), requestSecrets: secrets)
        secrets.formUnion(result.found)
        return result.headerFields
    }
}
