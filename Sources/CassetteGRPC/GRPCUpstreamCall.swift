import CassetteKernel
import CassetteServing
import Foundation
import HTTPTypes
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import WellPlateCore

/// One gRPC call relayed to the upstream over h2c (HTTP/2 with prior knowledge) or h2 over TLS
/// (`GRPCUpstreamConnection`), with swift-nio-http2's client: libcurl cannot send a client stream while reading the answer, nor
/// hand over trailers as they come. One connection per call, on the client stream's event loop,
/// so the two streams' frames pass between them without crossing threads. Frames go both ways
/// unchanged; the recorder gets each message inflated, the response HEADERS and the trailers.
/// An upstream that resets the stream or goes away before its trailers is the one exception:
/// the client gets a gRPC status naming it (`GRPCCutStatus`), not a bare reset.
final class GRPCUpstreamCall {
    let recorder: GRPCCallRecorder?
    private let connectionSettings: GRPCUpstreamConnection
    private var upstream: URL { connectionSettings.upstream }
    private let headers: HPACKHeaders
    private let eventLoop: any EventLoop
    private let toClient: (HTTP2Frame.FramePayload) -> Void
    private let log: ProxyLog
    private var stream: (any Channel)?
    private var connection: (any Channel)?
    /// Frames from the client before the upstream stream is open.
    private var pending: [HTTP2Frame.FramePayload] = []
    private var clientHalfClosed = false
    private var responseReader: GRPCFrameReader
    private var responseEncoding: String?
    private var sawResponseHeaders = false
    private var finished = false
    private let maxMessage: Int

    init(
        upstream: GRPCUpstreamConnection, headers: HPACKHeaders, recorder: GRPCCallRecorder?, maxMessage: Int, eventLoop: any EventLoop,
        toClient: @escaping (HTTP2Frame.FramePayload) -> Void, log: ProxyLog
    ) {
        connectionSettings = upstream
        self.headers = headers
        self.recorder = recorder
        self.maxMessage = maxMessage
        self.eventLoop = eventLoop
        self.toClient = toClient
        self.log = log
        responseReader = GRPCFrameReader(limit: maxMessage)
    }

    func start() {
        let bound = NIOLoopBound(self, eventLoop: eventLoop)
        connectionSettings.connect(on: eventLoop, timeout: .seconds(10)).assumeIsolated().whenComplete { result in
            let call = bound.value
            switch result {
            case .failure(let error as GRPCUpstreamTLSError):
                // Its sentence names the upstream already.
                call.upstreamFailed("cassette: \(error)")
            case .failure(let error):
                call.upstreamFailed("cassette: the upstream \(call.upstream.absoluteString) could not be reached: \(error)")
            case .success(let channel):
                call.connection = channel
                do {
                    let multiplexer = try channel.pipeline.syncOperations.handler(type: NIOHTTP2Handler.self).syncMultiplexer()
                    multiplexer.createStreamChannel { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandler(UpstreamStreamHandler(call: bound))
                        }
                    }.assumeIsolated().whenComplete { result in
                        switch result {
                        case .success(let stream): bound.value.opened(stream)
                        case .failure(let error): bound.value.upstreamFailed("cassette: the upstream stream could not be opened: \(error)")
                        }
                    }
                } catch {
                    call.upstreamFailed("cassette: HTTP/2 towards the upstream could not start: \(error)")
                }
            }
        }
    }

    private func opened(_ stream: any Channel) {
        self.stream = stream
        // The client reset, or the proxy cut, the call while the upstream was being reached.
        guard !finished else {
            stream.close(promise: nil)
            connection?.close(promise: nil)
            return
        }
        // Pseudo-headers first, as HTTP/2 requires; the authority is the upstream's.
        var request = HPACKHeaders([
            (":method", headers.first(name: ":method") ?? "POST"), (":scheme", connectionSettings.scheme), (":path", headers.first(name: ":path") ?? "/"),
            (":authority", connectionSettings.authority),
        ])
        // `x-cassette-session` picked the session; like the REST header, it never goes upstream.
        for header in headers where !header.name.hasPrefix(":") && header.name != SessionHeader.lowercasedName {
            request.add(name: header.name, value: header.value)
        }
        stream.write(HTTP2Frame.FramePayload.headers(.init(headers: request)), promise: nil)
        for payload in pending { stream.write(payload, promise: nil) }
        pending.removeAll()
        if clientHalfClosed { stream.write(HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(ByteBuffer()), endStream: true)), promise: nil) }
        stream.flush()
    }

    /// A frame from the client, passed on.
    func send(_ payload: HTTP2Frame.FramePayload) {
        guard let stream else { return pending.append(payload) }
        stream.writeAndFlush(payload, promise: nil)
    }

    func clientEnded() {
        clientHalfClosed = true
        stream?.writeAndFlush(HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(ByteBuffer()), endStream: true)), promise: nil)
    }

    /// The client reset its stream (or went away): the upstream's is reset too.
    func clientReset() {
        finish(trailers: nil, end: .dropped(by: .client))
        stream?.close(promise: nil)
        connection?.close(promise: nil)
    }

    /// The proxy is stopping: what passed is kept, marked `cut`, and the upstream's stream reset.
    func cut() {
        finish(trailers: nil, end: .cut)
        stream?.close(promise: nil)
        connection?.close(promise: nil)
    }

    fileprivate func fromUpstream(_ payload: HTTP2Frame.FramePayload) {
        switch payload {
        case .headers(let frame):
            let fields = GRPCHeaders.metadata(frame.headers)
            if !sawResponseHeaders && !frame.endStream {
                sawResponseHeaders = true
                responseEncoding = frame.headers.first(name: "grpc-encoding")
                recorder?.responseHeaders(fields)
            } else {
                let status = frame.headers.first(name: "grpc-status").flatMap(Int.init)
                let message = frame.headers.first(name: "grpc-message").map(GRPCMessageText.decode) ?? ""
                finish(trailers: fields, end: .closed(by: .server, code: status, reason: message))
            }
            toClient(payload)
            if frame.endStream { connection?.close(promise: nil) }
        case .data(let frame):
            if case .byteBuffer(let buffer) = frame.data {
                if let frames = try? responseReader.append(Data(buffer.readableBytesView)) {
                    for message in frames {
                        if let inflated = GRPCCompression.inflate(message, encoding: responseEncoding, limit: maxMessage) { recorder?.add(.server, inflated) }
                    }
                }
            }
            toClient(payload)
        case .rstStream(let code):
            upstreamEnded(.dropped(by: .server, reset: HTTP2ResetCode(rawValue: code.networkCode)))
        default:
            break
        }
    }

    /// The upstream's connection went away mid-call (its process died): swift-nio-http2 closes the stream.
    fileprivate func upstreamClosed() {
        upstreamEnded(.dropped(by: .server))
    }

    /// The upstream reset the stream or went away before its trailers: what passed is stored,
    /// marked so; the client gets a gRPC status saying so (`GRPCCutStatus`, as a replay of the
    /// recording answers), in trailers after what it got, or trailers only.
    private func upstreamEnded(_ end: ConversationEnd) {
        defer { connection?.close(promise: nil) }
        // After the trailers (a RST_STREAM NO_ERROR that stops the client's stream), or after the
        // client's reset or the proxy's cut: the call has its end.
        guard !finished else { return }
        finish(trailers: nil, end: end)
        let (code, message) = GRPCCutStatus.of(end, path: headers.first(name: ":path") ?? "")
        let frame =
            sawResponseHeaders
            ? GRPCHeaders.trailers(GRPCHeaders.status(code, message)) : GRPCHeaders.trailersOnly(code, message)
        toClient(.headers(.init(headers: frame, endStream: true)))
    }

    private func upstreamFailed(_ message: String) {
        log.error(message)
        finish(trailers: nil, end: .dropped(by: .server))
        toClient(.headers(.init(headers: GRPCHeaders.trailersOnly(.unavailable, message), endStream: true)))
        connection?.close(promise: nil)
    }

    private func finish(trailers: HTTPFields?, end: ConversationEnd) {
        guard !finished else { return }
        finished = true
        recorder?.finish(trailers: trailers, end: end)
    }
}

/// The upstream stream's only handler: hands every frame to the call.
private final class UpstreamStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload

    private let call: NIOLoopBound<GRPCUpstreamCall>

    init(call: NIOLoopBound<GRPCUpstreamCall>) {
        self.call = call
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        call.value.fromUpstream(Self.unwrapInboundIn(data))
    }

    func channelInactive(context: ChannelHandlerContext) {
        call.value.upstreamClosed()
        context.fireChannelInactive()
    }
}

@available(*, unavailable)
extension GRPCUpstreamCall: Sendable {}
