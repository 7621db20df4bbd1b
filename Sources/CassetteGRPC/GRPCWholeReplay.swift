import CassetteKernel
import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import WellPlateCore

/// The replay hot path of gRPC: a unary call replayed at the connection (`HTTP2PlainReplies`
/// holds its frames until the request is whole), without a stream channel and its handlers,
/// which cost about half the server CPU of a replayed unary call (perf, Benchmarks/grpc.sh).
/// Only a call the stream path would answer at once, with nothing but the recording: a replay
/// whose recordings are unary-shaped, whose one request message matches one, with no delay to
/// wait (`--grpc-timing fast`, or none recorded) and recorded trailers. Every other call (a miss,
/// a fallback to the upstream, a broken message, a delay, a cut recording) gets `nil` before
/// anything is counted or logged, and goes to `GRPCStreamHandler` as if never looked at.
extension GRPCService {
    /// The answerer for a call these request HEADERS open, when it may be answered whole.
    func wholeReplay(_ headers: HPACKHeaders, logShard: Int) -> HTTP2WholeAnswerer? {
        guard headers.first(name: ":method") == "POST", let path = headers.first(name: ":path"), case .replay(let replay, _) = plan(path: path),
            replay.isUnaryShaped
        else { return nil }
        let started = NIODeadline.now()
        let encoding = headers.first(name: "grpc-encoding")
        let acceptsGzip = GRPCCompression.acceptsGzip(headers.first(name: "grpc-accept-encoding"))
        return { [self] body in
            answer(replay, path: path, body: body, encoding: encoding, acceptsGzip: acceptsGzip, started: started, logShard: logShard)
        }
    }

    private func answer(
        _ replay: GRPCReplay, path: String, body: ByteBuffer, encoding: String?, acceptsGzip: Bool, started: NIODeadline, logShard: Int
    ) -> [HTTP2Frame.FramePayload]? {
        var reader = GRPCFrameReader(limit: maxMessage)
        guard let messages = try? reader.append(Data(body.readableBytesView)), messages.count == 1, (try? reader.finish()) != nil,
            let message = GRPCCompression.inflate(messages[0], encoding: encoding, limit: maxMessage)
        else { return nil }
        var replay = replay
        guard case .answer(let early) = replay.receive(message), early.isEmpty, case .answer(let messages) = replay.clientEnded(),
            timingScale == 0 || messages.allSatisfy({ $0.delayMilliseconds == 0 })
        else { return nil }
        let recording = replay.recording
        guard let trailers = recording.grpc?.trailers, let status = trailers[GRPCHeaders.statusName] else { return nil }
        let frames = GRPCReplayAnswer(recording: recording, acceptsGzip: acceptsGzip).frames(messages: messages.map(\.payload), trailers: trailers)
        served.conversations.countServed(recording)
        served.log.answered(
            method: .POST, target: path, status: "200", outcome: "gRPC \(GRPCStatusCode.name(of: status)) replayed", started: started, shard: logShard)
        return frames
    }
}
