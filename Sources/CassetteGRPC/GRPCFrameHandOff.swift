import NIOCore
import NIOHTTP2

/// HTTP/2 frames handed from one event loop to another (a call's client stream and its
/// upstream stream may run on different loops), written to a stream channel on its own loop.
/// `@unchecked Sendable`: `HTTP2Frame.FramePayload` is not `Sendable` only because it may hold a
/// `FileRegion` (swift-nio-http2's note in HTTP2Frame.swift); the gRPC frames handed off here
/// hold `ByteBuffer`s (values), or headers, and the sender keeps no reference to them.
struct GRPCFrameHandOff: @unchecked Sendable {
    let payloads: [HTTP2Frame.FramePayload]
    /// Completed when the first frame is written (or fails to be).
    private let firstWritten: EventLoopPromise<Void>?

    init(_ payloads: [HTTP2Frame.FramePayload], firstWritten: EventLoopPromise<Void>? = nil) {
        self.payloads = payloads
        self.firstWritten = firstWritten
    }

    /// Writes and flushes the frames on `stream`'s loop, hopping there when called from another;
    /// the hops of one caller keep their order (the loop's queue is first in, first out).
    func write(to stream: any Channel) {
        guard stream.eventLoop.inEventLoop else {
            return stream.eventLoop.execute { self.write(to: stream) }
        }
        for (index, payload) in payloads.enumerated() {
            stream.write(payload, promise: index == 0 ? firstWritten : nil)
        }
        stream.flush()
    }
}
