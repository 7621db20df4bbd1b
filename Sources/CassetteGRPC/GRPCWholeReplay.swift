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
        // A session's journal gets every call, as the stream path reports it (REST's prepared
        // replies likewise skip a listener with a journal).
        guard served.journal == nil, headers.first(name: ":method") == "POST", let path = headers.first(name: ":path"),
            let answers = unaryAnswers(path: path),
            replaysRecordings(of: answers.key)
        else { return nil }
        let started = NIODeadline.now()
        let encoding = headers.first(name: "grpc-encoding")
        let acceptsGzip = GRPCCompression.acceptsGzip(headers.first(name: "grpc-accept-encoding"))
        return { [self] body in
            answer(answers, body: body, encoding: encoding, acceptsGzip: acceptsGzip, started: started, logShard: logShard)
        }
    }

    private func answer(
        _ answers: GRPCUnaryAnswers, body: ByteBuffer, encoding: String?, acceptsGzip: Bool, started: NIODeadline, logShard: Int
    ) -> [HTTP2Frame.FramePayload]? {
        guard let frame = Self.onlyMessage(of: body, limit: maxMessage), let message = GRPCCompression.inflate(frame, encoding: encoding, limit: maxMessage),
            let answer = answers.answer(to: message)
        else { return nil }
        served.conversations.countServed(answer.recording)
        served.log.answered(method: .POST, target: answers.path, status: "200", outcome: answer.outcome, started: started, shard: logShard)
        // The UI's Live view, as for a call the stream path answers (no journal here).
        report(path: answers.path, status: answer.statusName, message: answer.statusMessage, outcome: .replayed, started: started)
        return acceptsGzip ? answer.gzipFrames : answer.frames
    }

    /// The request's one length-prefixed message, as `GRPCFrameReader` reads it; `nil` for none,
    /// several, a broken prefix or one over `limit` (the stream path answers those with errors).
    static func onlyMessage(of body: ByteBuffer, limit: Int) -> GRPCFrame? {
        guard let flag = body.getInteger(at: body.readerIndex, as: UInt8.self), flag <= 1,
            let length = body.getInteger(at: body.readerIndex + 1, as: UInt32.self), Int(length) <= limit, body.readableBytes == 5 + Int(length)
        else { return nil }
        return GRPCFrame(compressed: flag == 1, payload: Data(body.readableBytesView.dropFirst(5)))
    }
}
