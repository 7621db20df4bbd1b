import Foundation
import NIOCore
import NIOHTTP2
import WellPlateCore

/// A unary-shaped method's replayed answers, worked out once per distinct request the recordings
/// hold: what `GRPCReplay` answers a live message whose canonical form is that request's, as the
/// frames `GRPCReplayAnswer` makes of it. A listener's recordings and schema never change while it
/// serves, so neither do these; working them out per call (the replay's candidates copied and
/// searched, the answer's headers and frames built, its message framed) was a third of the
/// server CPU a replayed unary call cost beyond the bare server's (perf, Benchmarks/grpc.sh).
final class GRPCUnaryAnswers: Sendable {
    /// One request's answer; `nil` frames where the call is not one to answer whole (a delay to
    /// wait, no recorded trailers): the stream path answers it.
    struct Answer: Sendable {
        let recording: Conversation
        /// For a client that does not accept gzip, and for one that does.
        let frames: [HTTP2Frame.FramePayload]
        let gzipFrames: [HTTP2Frame.FramePayload]
        /// The request log's outcome, `gRPC OK replayed`.
        let outcome: String
        /// The status as the Live view and journals name it (`OK`), and its `grpc-message` decoded.
        let statusName: String
        let statusMessage: String?
    }

    let path: String
    let key: String
    private let schema: ProtoSchema
    private let redactLive: @Sendable (Data) -> Data
    /// By the canonical form of the request message; the first recording in sequence order wins,
    /// as in `GRPCReplay.receive`.
    private let answers: [Data: Answer?]
    /// The same answers by each recording's request bytes as stored: a live message with those
    /// bytes has their canonical form, found without decoding it (which, with descriptors, parses
    /// the message into protobuf JSON on every call).
    private let answersByBytes: [Data: Answer?]

    /// `nil` unless every recording of the method is unary-shaped (`GRPCReplay.isUnaryShaped`).
    /// `waits`: whether recorded delays are waited for (`--grpc-timing` is not `fast`).
    init?(
        path: String, key: String, recordings: [Conversation], schema: ProtoSchema, waits: Bool, redactLive: @escaping @Sendable (Data) -> Data
    ) {
        let replay = GRPCReplay(path: path, recordings: recordings, schema: schema, redactLive: redactLive)
        guard !recordings.isEmpty, replay.isUnaryShaped else { return nil }
        var answers: [Data: Answer?] = [:]
        var answersByBytes: [Data: Answer?] = [:]
        for recording in recordings {
            let request = recording.messages[0].payload
            let canonical = schema.canonicalForm(of: request, path: path, direction: .request)
            if answers[canonical] == nil { answers[canonical] = .some(Self.answer(to: request, replay: replay, waits: waits)) }
            answersByBytes[request] = answers[canonical]
        }
        self.path = path
        self.key = key
        self.schema = schema
        self.redactLive = redactLive
        self.answers = answers
        self.answersByBytes = answersByBytes
    }

    /// What `GRPCReplay` answers `request` and the client's end with, when nothing waits.
    private static func answer(to request: Data, replay: GRPCReplay, waits: Bool) -> Answer? {
        var replay = replay
        guard case .answer(let early) = replay.receive(request), early.isEmpty, case .answer(let messages) = replay.clientEnded(),
            !waits || messages.allSatisfy({ $0.delayMilliseconds == 0 })
        else { return nil }
        let recording = replay.recording
        guard let trailers = recording.grpc?.trailers, let status = trailers[GRPCHeaders.statusName] else { return nil }
        let payloads = messages.map(\.payload)
        let name = GRPCStatusCode.name(of: status)
        let plain = GRPCReplayAnswer(recording: recording, acceptsGzip: false)
        let gzip = GRPCReplayAnswer(recording: recording, acceptsGzip: true)
        let frames = plain.frames(messages: payloads, trailers: trailers)
        return Answer(
            recording: recording, frames: frames, gzipFrames: gzip.compressesReplies ? gzip.frames(messages: payloads, trailers: trailers) : frames,
            outcome: "gRPC \(name) replayed", statusName: name,
            statusMessage: trailers[GRPCHeaders.messageName].flatMap { $0.isEmpty ? nil : GRPCMessageText.decode($0) })
    }

    /// The answer to the one (inflated) request message of a call, when it is answered whole.
    func answer(to message: Data) -> Answer? {
        if let found = answersByBytes[message] ?? answers[schema.canonicalForm(of: message, path: path, direction: .request)] { return found }
        // A recording keeps a token in a message as `REDACTED`: the live one matches it redacted.
        let redacted = redactLive(message)
        guard redacted != message, let found = answers[schema.canonicalForm(of: redacted, path: path, direction: .request)] else { return nil }
        return found
    }
}
