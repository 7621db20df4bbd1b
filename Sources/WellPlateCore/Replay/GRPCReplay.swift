import Foundation

/// A gRPC call replayed turn by turn from the calls recorded for its method, as a WebSocket
/// conversation is: each client message is matched against the next one of the recordings still
/// in the running (compared in canonical form: protobuf JSON by field when the schema knows the
/// method, bytes otherwise), and the server messages recorded after it are what it answers. The
/// first message picks among the method's recordings (the key of a unary or server-streaming call
/// is its path and canonical request); a later one that differs ends the call with an error that
/// names the message expected. The client's half-close is an event of the recording too (a
/// client `close` message), so answers sent only after it are held until the live client ends.
package struct GRPCReplay: Sendable {
    package let path: String
    private let schema: ProtoSchema
    private var candidates: [Conversation]
    /// Client events (messages and the half-close) received so far.
    private var received = 0
    /// A live message as recording would have stored it (redacted), for when it is not the
    /// recorded one as it came: a recording keeps a token in a message as `REDACTED`.
    private let redactLive: @Sendable (Data) -> Data

    /// Replays `path` from `recordings` (its calls, in sequence order; not empty).
    package init(path: String, recordings: [Conversation], schema: ProtoSchema, redactLive: @escaping @Sendable (Data) -> Data = { $0 }) {
        self.path = path
        self.schema = schema
        self.redactLive = redactLive
        candidates = recordings
    }

    /// The recording answering the call (the first still in the running).
    package var recording: Conversation { candidates[0] }

    /// Whether every recording still in the running is a unary-shaped call (or a server stream):
    /// one client message, the client's end, then server messages only. A client replaying such a
    /// call sends its whole request before it waits for anything, so it may be answered whole.
    package var isUnaryShaped: Bool {
        candidates.allSatisfy { recording in
            let messages = recording.messages
            guard messages.count >= 2, messages[0].direction == .client, messages[0].kind != .close, messages[1].direction == .client,
                messages[1].kind == .close
            else { return false }
            return messages.dropFirst(2).allSatisfy { $0.direction == .server }
        }
    }

    /// What the call gets at a step: server messages to send (each with its delay after the
    /// step's client event, in milliseconds, as recorded), or the error that ends the call.
    package enum Step: Sendable, Equatable {
        case answer([(payload: Data, delayMilliseconds: Double)])
        case error(GRPCStatusCode, String)

        package static func == (lhs: Step, rhs: Step) -> Bool {
            switch (lhs, rhs) {
            case (.answer(let a), .answer(let b)): a.map(\.payload) == b.map(\.payload) && a.map(\.delayMilliseconds) == b.map(\.delayMilliseconds)
            case (.error(let a, let x), .error(let b, let y)): a == b && x == y
            default: false
            }
        }
    }

    /// Whether the recording's upstream ended the call (reset its stream, or went away) once the
    /// client events received so far had come, the client's side still open: a replay ends the
    /// call there too, rather than wait for a half-close the recording never saw.
    package var upstreamEndedHere: Bool {
        guard case .dropped(.server, _) = recording.end else { return false }
        return Self.clientEventPosition(received, of: recording) == nil
    }

    /// How long after the client's latest event the recording's upstream reset the call, in
    /// milliseconds (`GRPCCallHeads.endOffsetMilliseconds`); `nil` for a call that ended
    /// otherwise or a store without the moment, whose end follows its last message.
    package var endDelayMilliseconds: Double? {
        guard case .dropped(.server, _?) = recording.end, let end = recording.grpc?.endOffsetMilliseconds else { return nil }
        let since =
            received == 0 ? 0 : Self.clientEventPosition(received - 1, of: recording).map { recording.messages[$0].offsetMilliseconds } ?? 0
        return max(0, end - since)
    }

    /// The server messages recorded before the client's first event (a server that speaks first).
    package func opening() -> Step {
        answer(after: nil, in: recording)
    }

    /// The live client sent `message` (inflated).
    package mutating func receive(_ message: Data) -> Step {
        let index = received
        received += 1
        var matching = matches(at: index, message)
        if matching.isEmpty {
            let redacted = redactLive(message)
            if redacted != message { matching = matches(at: index, redacted) }
        }
        guard let chosen = matching.first else { return mismatch(index: index, message: message) }
        candidates = matching
        return answer(after: index, in: chosen)
    }

    /// The recordings still in the running whose client event `index` is `message`.
    private func matches(at index: Int, _ message: Data) -> [Conversation] {
        let live = schema.canonicalForm(of: message, path: path, direction: .request)
        return candidates.filter { recording in
            guard let event = Self.clientEvent(index, of: recording), event.kind != .close else { return false }
            return schema.canonicalForm(of: event.payload, path: path, direction: .request) == live
        }
    }

    /// The live client half-closed its side.
    package mutating func clientEnded() -> Step {
        let index = received
        received += 1
        let matching = candidates.filter { Self.clientEvent(index, of: $0)?.kind == .close || Self.clientEvent(index, of: $0) == nil }
        guard let chosen = matching.first else {
            let expected = Self.clientEvent(index, of: recording).map { describe($0.payload) } ?? "the end of the stream"
            return .error(
                .failedPrecondition,
                "cassette: the client ended the stream of \(path) after \(index) messages, but the recording has another: \(expected); record the call again if the client changed"
            )
        }
        candidates = matching
        return answer(after: index, in: chosen)
    }

    /// The recorded server messages after client event `index` (from the start: `nil`) up to
    /// the next client event, with their delays after that event.
    private func answer(after index: Int?, in recording: Conversation) -> Step {
        var position = 0
        var startOffset = 0.0
        if let index {
            guard let found = Self.clientEventPosition(index, of: recording) else { return .answer([]) }
            position = found + 1
            startOffset = recording.messages[found].offsetMilliseconds
        }
        var messages: [(payload: Data, delayMilliseconds: Double)] = []
        while position < recording.messages.count, recording.messages[position].direction == .server {
            let message = recording.messages[position]
            messages.append((message.payload, max(0, message.offsetMilliseconds - startOffset)))
            position += 1
        }
        return .answer(messages)
    }

    private func mismatch(index: Int, message: Data) -> Step {
        let got = describe(message)
        if index == 0 {
            // Nearest first: the recorded requests with the fewest fields that differ.
            let nearest = candidates.compactMap { Self.clientEvent(0, of: $0) }.filter { $0.kind != .close }
                .map { ($0.payload, differingFields(between: $0.payload, and: message)) }
                .sorted { ($0.1?.count ?? Int.max) < ($1.1?.count ?? Int.max) }
            var listed: [String] = []
            for (payload, _) in nearest where listed.count < 3 {
                let text = describe(payload)
                if !listed.contains(text) { listed.append(text) }
            }
            let list = listed.joined(separator: "; ")
            let differs = nearest.first?.1.map { $0.isEmpty ? "" : " (differs in \($0.joined(separator: ", ")))" } ?? ""
            return .error(
                .notFound,
                "cassette: no recording of \(path) for request \(got); nearest recorded: \(list.isEmpty ? "none" : list)\(differs); record it with `cassette record`"
            )
        }
        guard let expected = Self.clientEvent(index, of: recording) else {
            return .error(.failedPrecondition, "cassette: the client sent message \(index + 1) of \(path), \(got), after the recorded stream ended")
        }
        let what = expected.kind == .close ? "the end of the client's stream" : describe(expected.payload)
        return .error(
            .failedPrecondition,
            "cassette: message \(index + 1) of the client's stream of \(path) differs from the recording: expected \(what), got \(got)")
    }

    /// The fields whose values differ, when both messages decode as objects.
    private func differingFields(between recorded: Data, and live: Data) -> [String]? {
        guard let expected = schema.jsonValue(recorded, path: path, direction: .request)?.objectValue,
            let got = schema.jsonValue(live, path: path, direction: .request)?.objectValue
        else { return nil }
        return Set(expected.keys).union(got.keys).sorted().filter { expected[$0] != got[$0] }
    }

    /// A message as errors name it: compact protobuf JSON, or its raw form.
    private func describe(_ message: Data) -> String {
        if let value = schema.jsonValue(message, path: path, direction: .request) { return value.compactJSON }
        return (ProtoRawText.text(of: message) ?? "\(message.count) bytes").replacingOccurrences(of: "\n", with: " ")
    }

    private static func clientEventPosition(_ index: Int, of recording: Conversation) -> Int? {
        var seen = 0
        for (position, message) in recording.messages.enumerated() where message.direction == .client {
            if seen == index { return position }
            seen += 1
        }
        return nil
    }

    private static func clientEvent(_ index: Int, of recording: Conversation) -> ConversationMessage? {
        clientEventPosition(index, of: recording).map { recording.messages[$0] }
    }
}
