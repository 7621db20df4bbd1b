import Foundation
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOWebSocket
import Synchronization

@testable import CassetteKernel

/// The socket's end of an `EmbeddedChannel` pipeline, put first: it notes the reads, writes and
/// flushes that reach the socket and takes the half-closures a real socket would do. `EmbeddedChannel` closes the
/// whole channel on `close(mode: .output)`, so without it a lingering close could not be watched
/// draining (swift-nio's own tests put a `CloseOutputSuppressor` there for the same reason).
final class SocketStandIn: ChannelOutboundHandler {
    typealias OutboundIn = NIOAny
    typealias OutboundOut = NIOAny

    enum Event: Equatable {
        case write, flush, outputClose
    }

    /// Writes, flushes and half-closures, in the order they reached the socket.
    private(set) var events: [Event] = []
    /// The reads that reached the socket.
    private(set) var reads = 0
    /// How many times the write side was shut down.
    var outputCloses: Int { events.filter { $0 == .outputClose }.count }
    /// Fails every half-closure, as a socket that cannot shut down one side does.
    private let refusesHalfClosure: Bool

    init(refusesHalfClosure: Bool = false) {
        self.refusesHalfClosure = refusesHalfClosure
    }

    func read(context: ChannelHandlerContext) {
        reads += 1
        context.read()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        events.append(.write)
        context.write(data, promise: promise)
    }

    func flush(context: ChannelHandlerContext) {
        events.append(.flush)
        context.flush()
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .output else {
            context.close(mode: mode, promise: promise)
            return
        }
        events.append(.outputClose)
        if refusesHalfClosure {
            promise?.fail(ChannelError.operationUnsupported)
        } else {
            promise?.succeed()
        }
    }
}

/// Keeps what reaches the end of a pipeline, in order.
final class InboundRecorder<Part>: ChannelInboundHandler {
    typealias InboundIn = Part

    private(set) var reads: [Part] = []
    private(set) var errors: [any Error] = []
    private(set) var events: [Any] = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        reads.append(Self.unwrapInboundIn(data))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        errors.append(error)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        events.append(event)
    }
}

/// A `LogHandler` that keeps every line, so a test can read what a handler reported through its
/// `ProxyLog` (with no request log, warnings go to the logger).
final class LogLines: LogHandler, Sendable {
    private let stored = Mutex<[String]>([])

    var lines: [String] { stored.withLock { $0 } }

    var logLevel: Logger.Level {
        get { .trace }
        set {}
    }

    var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
    }

    func log(event: LogEvent) {
        stored.withLock { $0.append("\(event.message)") }
    }

    var logger: Logger {
        Logger(label: "test") { _ in self }
    }

    /// A `ProxyLog` with no request log: every warning lands here.
    var proxyLog: ProxyLog {
        ProxyLog(requestLog: nil, stalePolicy: nil, logger: logger)
    }
}

extension EmbeddedChannel {
    /// Every buffer written so far, joined, once the loop has run what it had to.
    func writtenBytes() throws -> [UInt8] {
        embeddedEventLoop.run()
        var bytes: [UInt8] = []
        while let buffer = try readOutbound(as: ByteBuffer.self) {
            bytes += buffer.readableBytesView
        }
        return bytes
    }

    /// `writtenBytes()` as text.
    func writtenText() throws -> String {
        String(decoding: try writtenBytes(), as: UTF8.self)
    }

    /// Every frame written so far.
    func writtenFrames() throws -> [WebSocketFrame] {
        embeddedEventLoop.run()
        var frames: [WebSocketFrame] = []
        while let frame = try readOutbound(as: WebSocketFrame.self) {
            frames.append(frame)
        }
        return frames
    }

    /// The pipeline's handlers by type name without generic arguments, head first.
    var handlerTypes: [String] {
        // NIO has no public walk of a pipeline; its description lists one handler a line, head
        // first, after a title and a legend: the inbound type left of `↓↑`, the outbound right.
        pipeline.debugDescription.split(separator: "\n").dropFirst(2).compactMap { line in
            let sides = line.split(separator: "↓↑", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard sides.count == 2 else { return nil }
            let type = sides[0].isEmpty ? String(sides[1].prefix { $0 != "[" }).trimmingCharacters(in: .whitespaces) : sides[0]
            return String(type.prefix { $0 != "<" })
        }
    }
}

/// What a reset connection reports (`ChannelError.eof` never reaches `errorCaught`: NIO asserts it).
let connectionReset = IOError(errnoCode: ECONNRESET, reason: "read(descriptor:pointer:size:)")

extension WebSocketFrame {
    /// A frame as NIO's decoder hands over one a client sent: masked, its payload still masked.
    static func fromClient(_ opcode: WebSocketOpcode, _ text: String, fin: Bool = true) -> WebSocketFrame {
        fromClient(opcode, ByteBuffer(string: text), fin: fin)
    }

    static func fromClient(_ opcode: WebSocketOpcode, _ data: ByteBuffer, fin: Bool = true) -> WebSocketFrame {
        let key = WebSocketMaskingKey.random()
        var masked = data
        masked.webSocketMask(key)
        return WebSocketFrame(fin: fin, opcode: opcode, maskKey: key, data: masked)
    }

    /// A frame as a server sends one: unmasked.
    static func fromServer(_ opcode: WebSocketOpcode, _ text: String, fin: Bool = true) -> WebSocketFrame {
        WebSocketFrame(fin: fin, opcode: opcode, data: ByteBuffer(string: text))
    }

    /// A close frame's payload as a client sends it.
    static func closeFromClient(code: UInt16, reason: String = "") -> WebSocketFrame {
        var data = ByteBuffer()
        data.writeInteger(code)
        data.writeString(reason)
        return fromClient(.connectionClose, data)
    }

    /// The payload of a frame a handler wrote, as text: plain, since the encoder masks it (a
    /// frame towards an upstream carries the key it will be masked with).
    var text: String {
        String(buffer: data)
    }

    /// The code and reason of a close frame a handler wrote.
    var closeFields: (code: Int?, reason: String) {
        var payload = data
        guard let code = payload.readInteger(as: UInt16.self) else { return (nil, "") }
        return (Int(code), payload.readString(length: payload.readableBytes) ?? "")
    }
}
