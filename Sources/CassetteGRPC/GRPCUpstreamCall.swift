import CassetteKernel
import CassetteServing
import Foundation
import HTTPTypes
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import WellPlateCore

/// One gRPC call relayed to the upstream over h2c (HTTP/2 with prior knowledge) or h2 over TLS,
/// with swift-nio-http2's client: libcurl cannot send a client stream while reading the answer, nor
/// hand over trailers as they come. The call is a stream on a connection the upstream's pool
/// (`GRPCUpstreamPool`) shares among calls, as a gRPC client's channel does; the call lives on
/// its client stream's event loop, and frames hop to the connection's when it runs on another.
/// Frames go both ways unchanged; the recorder gets each message inflated, the response HEADERS
/// and the trailers. An upstream that resets the stream or goes away before its trailers is the
/// one exception: the client gets a gRPC status naming it (`GRPCCutStatus`), not a bare reset. A
/// stream the upstream refused unprocessed (above a GOAWAY's last stream ID, RFC 9113 §6.8) is
/// sent again, with what the client sent so far, on another connection.
final class GRPCUpstreamCall {
    let recorder: GRPCCallRecorder?
    private let pool: GRPCUpstreamPool
    private var upstream: URL { pool.upstream.upstream }
    private let headers: HPACKHeaders
    private let eventLoop: any EventLoop
    private let toClient: (HTTP2Frame.FramePayload) -> Void
    private let log: ProxyLog
    private var stream: (any Channel)?
    /// Counts the streams the call was given: a refused stream's late events are told apart.
    private var attempt = 0
    /// Frames from the client before the upstream stream is open.
    private var pending: [HTTP2Frame.FramePayload] = []
    /// What the client sent, kept until the upstream answers (or it outgrows a message), to be
    /// sent again when the upstream refuses the stream; `nil` once it cannot be.
    private var resendable: [HTTP2Frame.FramePayload]? = []
    private var resendableBytes = 0
    private var clientHalfClosed = false
    private var responseReader: GRPCFrameReader
    private var responseEncoding: String?
    private var sawResponseHeaders = false
    private var finished = false
    private let maxMessage: Int
    /// A refused stream is sent again at most this many times (each time on a new connection).
    private static let maxResends = 3

    init(
        upstream: GRPCUpstreamPool, headers: HPACKHeaders, recorder: GRPCCallRecorder?, maxMessage: Int, eventLoop: any EventLoop,
        toClient: @escaping (HTTP2Frame.FramePayload) -> Void, log: ProxyLog
    ) {
        pool = upstream
        self.headers = headers
        self.recorder = recorder
        self.maxMessage = maxMessage
        self.eventLoop = eventLoop
        self.toClient = toClient
        self.log = log
        responseReader = GRPCFrameReader(limit: maxMessage)
    }

    func start() {
        attempt += 1
        let attempt = self.attempt
        let bound = NIOLoopBound(self, eventLoop: eventLoop)
        pool.stream(on: eventLoop) { stream in
            stream.eventLoop.makeCompletedFuture {
                try stream.pipeline.syncOperations.addHandler(UpstreamStreamHandler(call: bound, attempt: attempt))
            }
        }.assumeIsolated().whenComplete { result in
            let call = bound.value
            guard attempt == call.attempt else { return }
            switch result {
            case .success(let stream): call.opened(stream)
            case .failure(let error as GRPCUpstreamTLSError):
                // Its sentence names the upstream already.
                call.upstreamFailed("cassette: \(error)")
            case .failure(let error): call.upstreamFailed("cassette: the upstream \(call.upstream.absoluteString) could not be reached: \(error)")
            }
        }
    }

    private func opened(_ stream: any Channel) {
        self.stream = stream
        // The client reset, or the proxy cut, the call while the upstream was being reached.
        guard !finished else {
            stream.close(promise: nil)
            return
        }
        // Pseudo-headers first, as HTTP/2 requires; the authority is the upstream's.
        let settings = pool.upstream
        var request = HPACKHeaders([
            (":method", headers.first(name: ":method") ?? "POST"), (":scheme", settings.scheme), (":path", headers.first(name: ":path") ?? "/"),
            (":authority", settings.authority),
        ])
        // `x-cassette-session` picked the session; like the REST header, it never goes upstream.
        for header in headers where !header.name.hasPrefix(":") && header.name != SessionHeader.lowercasedName {
            request.add(name: header.name, value: header.value)
        }
        var frames = [HTTP2Frame.FramePayload.headers(.init(headers: request))] + pending
        pending.removeAll()
        if clientHalfClosed { frames.append(.data(.init(data: .byteBuffer(ByteBuffer()), endStream: true))) }
        // HEADERS written after the connection's GOAWAY came are refused by swift-nio-http2: the
        // stream never reached the upstream, and goes again on another connection.
        let headersWritten = stream.eventLoop.makePromise(of: Void.self)
        let (bound, attempt) = (NIOLoopBound(self, eventLoop: eventLoop), self.attempt)
        headersWritten.futureResult.hop(to: eventLoop).assumeIsolated().whenFailure { error in
            if UpstreamStreamHandler.isRefusal(error) { bound.value.refused(attempt: attempt) }
        }
        GRPCFrameHandOff(frames, firstWritten: headersWritten).write(to: stream)
    }

    /// A frame from the client, passed on.
    func send(_ payload: HTTP2Frame.FramePayload) {
        keepResendable(payload)
        guard let stream else { return pending.append(payload) }
        GRPCFrameHandOff([payload]).write(to: stream)
    }

    func clientEnded() {
        clientHalfClosed = true
        guard let stream else { return }
        GRPCFrameHandOff([.data(.init(data: .byteBuffer(ByteBuffer()), endStream: true))]).write(to: stream)
    }

    /// The client reset its stream (or went away): the upstream's is reset too.
    func clientReset() {
        finish(trailers: nil, end: .dropped(by: .client))
        stream?.close(promise: nil)
    }

    /// The proxy is stopping: what passed is kept, marked `cut`, and the upstream's stream reset.
    func cut() {
        finish(trailers: nil, end: .cut)
        stream?.close(promise: nil)
    }

    private func keepResendable(_ payload: HTTP2Frame.FramePayload) {
        guard resendable != nil else { return }
        if case .data(let frame) = payload, case .byteBuffer(let buffer) = frame.data { resendableBytes += buffer.readableBytes }
        // Kept while it is small: a call the client streams much into is not sent twice.
        if resendableBytes > maxMessage { return resendable = nil }
        resendable?.append(payload)
    }

    fileprivate func fromUpstream(_ payload: HTTP2Frame.FramePayload, attempt: Int) {
        guard attempt == self.attempt else { return }
        // The upstream has taken the stream: it is never sent again.
        resendable = nil
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
            // The call is over: a client side still open is reset upstream, freeing the stream's slot.
            if frame.endStream && !clientHalfClosed { stream?.close(promise: nil) }
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
    fileprivate func upstreamClosed(attempt: Int) {
        guard attempt == self.attempt else { return }
        upstreamEnded(.dropped(by: .server))
    }

    /// The upstream refused the stream unprocessed (a GOAWAY's last stream ID is below it): sent
    /// again on another connection, with what the client sent so far, when that was kept.
    fileprivate func refused(attempt: Int) {
        guard attempt == self.attempt, !finished else { return }
        let refusedStream = stream
        stream = nil
        refusedStream?.close(promise: nil)
        guard let resendable, attempt <= Self.maxResends else {
            return upstreamFailed(
                "cassette: the upstream \(upstream.absoluteString) is shutting down (GOAWAY) and did not take the call, which could not be sent again (\(resendable == nil ? "the client had sent too much to keep" : "refused \(attempt) times")); the client may retry it"
            )
        }
        log.warn(
            "cassette: the upstream \(upstream.absoluteString) went away (GOAWAY) before taking a call to \(headers.first(name: ":path") ?? "/"); sent again on a new connection"
        )
        pending = resendable
        start()
    }

    /// The upstream reset the stream or went away before its trailers: what passed is stored,
    /// marked so; the client gets a gRPC status saying so (`GRPCCutStatus`, as a replay of the
    /// recording answers), in trailers after what it got, or trailers only.
    private func upstreamEnded(_ end: ConversationEnd) {
        // After the trailers (a RST_STREAM NO_ERROR that stops the client's stream), or after the
        // client's reset or the proxy's cut: the call has its end.
        guard !finished else { return }
        finish(trailers: nil, end: end)
        stream?.close(promise: nil)
        let (code, message) = GRPCCutStatus.of(end, path: headers.first(name: ":path") ?? "")
        let frame =
            sawResponseHeaders
            ? GRPCHeaders.trailers(GRPCHeaders.status(code, message)) : GRPCHeaders.trailersOnly(code, message)
        toClient(.headers(.init(headers: frame, endStream: true)))
    }

    private func upstreamFailed(_ message: String) {
        guard !finished else { return }
        log.error(message)
        finish(trailers: nil, end: .dropped(by: .server))
        stream?.close(promise: nil)
        toClient(.headers(.init(headers: GRPCHeaders.trailersOnly(.unavailable, message), endStream: true)))
    }

    private func finish(trailers: HTTPFields?, end: ConversationEnd) {
        guard !finished else { return }
        finished = true
        recorder?.finish(trailers: trailers, end: end)
    }
}

/// The upstream stream's only handler, on the connection's event loop: hands every frame, the
/// stream's refusal and its end to the call, on the call's loop.
private final class UpstreamStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload

    private let call: NIOLoopBound<GRPCUpstreamCall>
    private let attempt: Int

    init(call: NIOLoopBound<GRPCUpstreamCall>, attempt: Int) {
        self.call = call
        self.attempt = attempt
    }

    /// The upstream reset the stream: its closing error that follows is not a refusal.
    private var sawReset = false

    /// Whether a write failed because the stream was opened after the connection's GOAWAY came.
    static func isRefusal(_ error: any Error) -> Bool {
        let base = (error as? NIOHTTP2Errors.StreamError)?.baseError ?? error
        return base is NIOHTTP2Errors.CreatedStreamAfterGoaway
    }

    /// Whether `error` closing the stream says the upstream never processed it: a stream closed
    /// with an error code but no RST_STREAM is one a GOAWAY's last stream ID left out
    /// (swift-nio-http2 1.46 gives those CANCEL, though its `StreamClosedEvent` documents
    /// REFUSED_STREAM).
    private func isRefusal(closing error: any Error) -> Bool {
        if Self.isRefusal(error) { return true }
        let base = (error as? NIOHTTP2Errors.StreamError)?.baseError ?? error
        return base is NIOHTTP2Errors.StreamClosed && !sawReset
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let payload = Self.unwrapInboundIn(data)
        if case .rstStream = payload { sawReset = true }
        let handOff = GRPCFrameHandOff([payload])
        let attempt = self.attempt
        onCallLoop { call in
            for payload in handOff.payloads { call.fromUpstream(payload, attempt: attempt) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A RST_STREAM (REFUSED_STREAM too) came as a frame first, and ended the call as any reset does.
        guard isRefusal(closing: error) else { return }
        let attempt = self.attempt
        onCallLoop { $0.refused(attempt: attempt) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        let attempt = self.attempt
        onCallLoop { $0.upstreamClosed(attempt: attempt) }
        context.fireChannelInactive()
    }

    /// In order: events of one stream hop through the call loop's queue, or none of them does.
    private func onCallLoop(_ body: @escaping @Sendable (GRPCUpstreamCall) -> Void) {
        let call = self.call
        if call.eventLoop.inEventLoop {
            body(call.value)
        } else {
            call.eventLoop.execute { body(call.value) }
        }
    }
}

@available(*, unavailable)
extension GRPCUpstreamCall: Sendable {}
