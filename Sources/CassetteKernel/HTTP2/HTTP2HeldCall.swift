import NIOCore
import NIOHTTP2

/// A call a module answers whole (`HTTP2StreamSwitches.Switch.answersWhole`) while its request
/// comes, held by `HTTP2PlainReplies`: its frames as they came, to pass on unchanged if it is not
/// answered, and its body joined for the answerer. The connection's window is `NIOHTTP2Handler`'s
/// (given back as frames arrive); the stream's is never waited for, since the held body stays far
/// within the stream's initial window (`HTTP2Limits.streamWindow`; the limit is the lower of both).
package struct HTTP2HeldCall {
    /// The most body bytes held: a larger request goes to its stream.
    package static let bodyLimit = 64 * 1024

    var frames: [HTTP2Frame]
    let answerer: HTTP2WholeAnswerer
    /// The DATA bytes so far; one frame's buffer as it came, uncopied, when the body is one frame.
    private(set) var body: ByteBuffer?

    init(frames: [HTTP2Frame], answerer: @escaping HTTP2WholeAnswerer) {
        self.frames = frames
        self.answerer = answerer
    }

    /// Holds a DATA `frame` carrying `bytes`; `false`, holding nothing, when the body would
    /// outgrow `limit` bytes.
    mutating func append(_ frame: HTTP2Frame, body bytes: ByteBuffer, limit: Int) -> Bool {
        guard (body?.readableBytes ?? 0) + bytes.readableBytes <= limit else { return false }
        frames.append(frame)
        if var joined = body {
            body = nil
            var bytes = bytes
            joined.writeBuffer(&bytes)
            body = joined
        } else {
            body = bytes
        }
        return true
    }
}
