import CassetteKernel
import CassetteServing
import Foundation
import HTTPTypes
import NIOCore
import NIOHPACK
import NIOHTTP2
import WellPlateCore

/// Owns one HTTP/2 stream that carries a gRPC call (the kernel's `HTTP2StreamSwitches` hands it
/// over): cuts the client's DATA into messages (`--grpc-max-message`: RESOURCE_EXHAUSTED; a
/// broken prefix or undecodable compression: INTERNAL), then replays the call turn by turn from
/// the cassette, or relays it to the upstream over h2c and records it, or answers a gRPC error.
/// Every answer is HTTP 200 with `grpc-status`: gRPC clients report any other status as a
/// protocol error. Runs on the stream's event loop only.
final class GRPCStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private enum Mode {
        case waiting
        case replay(GRPCReplay)
        case relay(GRPCUpstreamCall)
        /// The call is answered (an error, or the replay's end): what else comes is dropped.
        case done
    }

    private let service: GRPCService
    private var mode = Mode.waiting
    private var reader: GRPCFrameReader
    private var path = ""
    private var requestEncoding: String?
    private var acceptsGzip = false
    private var sentHeaders = false
    /// When the last scheduled replay write goes out; later ones never overtake it.
    private var lastWrite = NIODeadline.uptimeNanoseconds(0)
    private var scheduled: [Scheduled<Void>] = []
    private var deadline: Scheduled<Void>?
    private var context: ChannelHandlerContext?
    /// Where an unmatched first request goes, and what it needs to be sent there: the request
    /// HEADERS and the DATA received so far.
    private var fallback: (URL, records: Bool)?
    private var requestHeaders = HPACKHeaders()
    private var receivedData: [ByteBuffer] = []
    private var clientHasEnded = false
    private var started = NIODeadline.now()
    /// How the call was answered, for its log line, the session's journal, the Live view and the summary.
    private var outcome = GRPCCallOutcome.refused
    private var logged = false
    /// The proxy is stopping: a relayed call that ends from now on is stored as `cut`.
    private var quiescing = false
    /// The replay's end is scheduled before the client ended its side (the recording's upstream
    /// reset the call there): what the client sends meanwhile is dropped.
    private var replayEnding = false
    /// The error the call gets as it opens (`GRPCService.routing`: a session that is not live).
    private let refusal: (GRPCStatusCode, String, GRPCCallOutcome)?

    init(service: GRPCService, refusal: (GRPCStatusCode, String, GRPCCallOutcome)? = nil) {
        self.service = service
        self.refusal = refusal
        reader = GRPCFrameReader(limit: service.maxMessage)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .headers(let headers):
            if case .waiting = mode {
                // A call refused as it opens is not reset when its HEADERS ended the client's side.
                if headers.endStream { clientHasEnded = true }
                start(headers.headers, context: context)
                if headers.endStream { clientEnded(context: context) }
            } else {
                // The client's trailers: its half-close.
                if case .relay(let upstream) = mode { upstream.send(.headers(headers)) }
                clientEnded(context: context)
            }
        case .data(let frame):
            guard case .byteBuffer(let buffer) = frame.data else { return }
            received(buffer, context: context)
            if frame.endStream { clientEnded(context: context) }
        case .rstStream:
            cancelReplay()
            if case .relay(let upstream) = mode { upstream.clientReset() }
            mode = .done
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelReplay()
        // After a quiesce the stream goes when the grace period ran out: the recorder stopped first.
        if case .relay(let upstream) = mode { quiescing ? upstream.cut() : upstream.clientReset() }
        mode = .done
        self.context = nil
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        quiesce()
    }

    /// The proxy is stopping (SIGTERM). A call the client still sends on cannot end by itself: it
    /// is cut here, as a WebSocket conversation is (stored with what passed, marked `cut`; the
    /// upstream's stream reset; the client told UNAVAILABLE, which its retry policy may retry
    /// against the next proxy). A call the client has ended is in flight: it is answered, as an
    /// HTTP request in flight is, within the grace period.
    private func quiesce() {
        quiescing = true
        guard !clientHasEnded else { return }
        switch mode {
        case .relay(let upstream):
            upstream.cut()
            fail(.unavailable, "cassette: the recorder is shutting down; the call is stored up to here, marked cut")
        case .replay:
            cancelReplay()
            fail(.unavailable, "cassette: the proxy is shutting down")
        case .waiting, .done:
            break
        }
    }

    private func start(_ headers: HPACKHeaders, context: ChannelHandlerContext) {
        started = .now()
        path = headers.first(name: ":path") ?? ""
        requestEncoding = headers.first(name: "grpc-encoding")
        acceptsGzip = GRPCCompression.acceptsGzip(headers.first(name: "grpc-accept-encoding"))
        if let (code, message, outcome) = refusal {
            self.outcome = outcome
            return fail(code, message)
        }
        guard headers.first(name: ":method") == "POST" else {
            return fail(.internalError, "cassette: a gRPC call is a POST, and this stream is a \(headers.first(name: ":method") ?? "request without a method")")
        }
        switch service.plan(path: path) {
        case .refuse(let code, let message):
            // Nothing recorded for the method on a replay: a miss; no upstream to record from: an error.
            if code == .unimplemented { outcome = .missed }
            fail(code, message)
        case .replay(let replay, let fallback):
            outcome = .replayed
            self.fallback = fallback
            requestHeaders = headers
            mode = .replay(replay)
            if let timeout = headers.first(name: "grpc-timeout").flatMap(GRPCTimeout.parse) {
                deadline = context.eventLoop.assumeIsolated().scheduleTask(
                    in: .nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000)
                ) {
                    [self] in
                    guard case .replay = mode else { return }
                    cancelReplay()
                    fail(.deadlineExceeded, "cassette: the recorded answer of \(path) takes longer than the client's grpc-timeout")
                }
            }
            send(replay.opening(), context: context)
        case .relay(let upstream, let records):
            relay(to: upstream, records: records, headers: headers, context: context)
        }
    }

    @discardableResult
    private func relay(to upstream: URL, records: Bool, headers: HPACKHeaders, context: ChannelHandlerContext) -> GRPCUpstreamCall {
        outcome = records ? .recorded : .passedThrough
        let recorder = records ? service.recorder(path: path, headers: headers) : nil
        // The plan's upstream is the listener's, whose connections the service's pool keeps.
        let call = GRPCUpstreamCall(
            upstream: service.upstreamPool(for: upstream), headers: headers, recorder: recorder,
            maxMessage: service.maxMessage, eventLoop: context.eventLoop,
            toClient: { [weak self] payload in self?.relayToClient(payload) }, log: service.served.log)
        mode = .relay(call)
        call.start()
        return call
    }

    /// The first request matched no recording and the mode records (or passes through): the
    /// call goes to the upstream with everything the client sent so far.
    private func fallBack(to upstream: URL, records: Bool, frames: [GRPCFrame], context: ChannelHandlerContext) {
        cancelReplay()
        let call = relay(to: upstream, records: records, headers: requestHeaders, context: context)
        for buffer in receivedData { call.send(.data(.init(data: .byteBuffer(buffer)))) }
        receivedData.removeAll()
        for frame in frames {
            if let message = GRPCCompression.inflate(frame, encoding: requestEncoding, limit: service.maxMessage) { call.recorder?.add(.client, message) }
        }
        if clientHasEnded {
            call.recorder?.add(.client, Data(), kind: .close)
            call.clientEnded()
        }
    }

    private func received(_ buffer: ByteBuffer, context: ChannelHandlerContext) {
        // The call is answered (a refused prefix stays in the reader): what else comes is dropped,
        // not answered a second time on a closed stream.
        if case .done = mode { return }
        if replayEnding { return }
        let bytes = Data(buffer.readableBytesView)
        let frames: [GRPCFrame]
        do {
            frames = try reader.append(bytes)
        } catch {
            if case .relay(let upstream) = mode { upstream.clientReset() }
            cancelReplay()
            outcome = .refused
            return fail(error.status, "cassette: \(error.description)")
        }
        switch mode {
        case .relay(let upstream):
            upstream.send(.data(.init(data: .byteBuffer(buffer))))
            for frame in frames {
                guard let message = GRPCCompression.inflate(frame, encoding: requestEncoding, limit: service.maxMessage) else { continue }
                upstream.recorder?.add(.client, message)
            }
        case .replay(var replay):
            if fallback != nil { receivedData.append(buffer) }
            for (index, frame) in frames.enumerated() {
                guard let message = GRPCCompression.inflate(frame, encoding: requestEncoding, limit: service.maxMessage) else {
                    cancelReplay()
                    return fail(.internalError, "cassette: a client message says it is compressed, and it does not inflate as \(requestEncoding ?? "identity")")
                }
                let step = replay.receive(message)
                if case .error(.notFound, _) = step, let (upstream, records) = fallback, !sentHeaders {
                    return fallBack(to: upstream, records: records, frames: Array(frames[index...]), context: context)
                }
                fallback = nil
                receivedData.removeAll()
                mode = .replay(replay)
                send(step, context: context)
                guard case .replay = mode else { return }
                if replay.upstreamEndedHere {
                    replayEnding = true
                    return finishReplay(replay, context: context)
                }
            }
        case .waiting, .done:
            break
        }
    }

    private func clientEnded(context: ChannelHandlerContext) {
        clientHasEnded = true
        if replayEnding { return }
        switch mode {
        case .relay(let upstream):
            do {
                try reader.finish()
            } catch {
                upstream.clientReset()
                return fail(error.status, "cassette: \(error.description)")
            }
            upstream.recorder?.add(.client, Data(), kind: .close)
            upstream.clientEnded()
        case .replay(var replay):
            do {
                try reader.finish()
            } catch {
                cancelReplay()
                return fail(error.status, "cassette: \(error.description)")
            }
            let step = replay.clientEnded()
            mode = .replay(replay)
            send(step, context: context)
            guard case .replay = mode else { return }
            finishReplay(replay, context: context)
        case .waiting, .done:
            break
        }
    }

    // MARK: Replay

    private func send(_ step: GRPCReplay.Step, context: ChannelHandlerContext) {
        switch step {
        case .error(let code, let message):
            cancelReplay()
            // No recording has the request, or the stream's next message changed: a miss.
            if code == .notFound || code == .failedPrecondition { outcome = .missed }
            fail(code, message)
        case .answer(let messages):
            guard case .replay(let replay) = mode else { return }
            let now = NIODeadline.now()
            for message in messages {
                let at = max(now + .nanoseconds(Int64(message.delayMilliseconds * service.timingScale * 1_000_000)), lastWrite)
                lastWrite = at
                let frame = encode(message.payload, recording: replay.recording)
                let recording = replay.recording
                schedule(at: at) { [self] in
                    writeResponseHeadersIfFirst(recording)
                    write(.data(.init(data: .byteBuffer(ByteBuffer(data: frame)))))
                }
            }
        }
    }

    /// Response HEADERS before the first message (once), when it goes out.
    private func writeResponseHeadersIfFirst(_ recording: Conversation) {
        guard !sentHeaders else { return }
        sentHeaders = true
        write(.headers(.init(headers: GRPCHeaders.response(responseFields(recording)))))
    }

    private func responseFields(_ recording: Conversation) -> HTTPFields {
        GRPCReplayAnswer(recording: recording, acceptsGzip: acceptsGzip).responseFields
    }

    private func encode(_ payload: Data, recording: Conversation) -> Data {
        GRPCReplayAnswer(recording: recording, acceptsGzip: acceptsGzip).encode(payload)
    }

    /// The recorded end after the last message: the trailers as recorded (trailers only when the
    /// recording had no response HEADERS and no message went out); a reset's status no sooner
    /// than the upstream's reset came, with recorded timing (`GRPCReplay.endDelayMilliseconds`).
    private func finishReplay(_ replay: GRPCReplay, context: ChannelHandlerContext) {
        let recording = replay.recording
        let trailers: HTTPFields
        if let recorded = recording.grpc?.trailers, recorded[GRPCHeaders.statusName] != nil {
            trailers = recorded
        } else {
            // Reset by the upstream, or cut: the status its live client got.
            let (code, message) = GRPCCutStatus.of(recording.end, path: path)
            trailers = GRPCHeaders.status(code, message)
        }
        if let delay = replay.endDelayMilliseconds {
            // From now: the client event this end follows was just received.
            lastWrite = max(NIODeadline.now() + .nanoseconds(Int64(delay * service.timingScale * 1_000_000)), lastWrite)
        }
        schedule(at: lastWrite) { [self] in
            deadline?.cancel()
            mode = .done
            service.served.conversations.countServed(recording)
            let trailersOnly = !sentHeaders && (recording.grpc?.isTrailersOnly ?? true)
            if !trailersOnly { writeResponseHeadersIfFirst(recording) }
            if trailersOnly {
                var fields = responseFields(recording)
                fields.append(contentsOf: trailers)
                write(.headers(.init(headers: GRPCHeaders.response(fields), endStream: true)))
            } else {
                write(.headers(.init(headers: GRPCHeaders.trailers(trailers), endStream: true)))
            }
        }
    }

    private func schedule(at deadline: NIODeadline, _ work: @escaping () -> Void) {
        guard let context else { return }
        if deadline <= .now() {
            work()
            return
        }
        scheduled.append(context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline, work))
    }

    private func cancelReplay() {
        for task in scheduled { task.cancel() }
        scheduled.removeAll()
        deadline?.cancel()
    }

    // MARK: Writing

    private func write(_ payload: HTTP2Frame.FramePayload) {
        // The call's end goes out first; telling of it (log, journal, Live view) comes after.
        guard case .headers(let frame) = payload, frame.endStream else {
            context?.writeAndFlush(Self.wrapOutboundOut(payload), promise: nil)
            return
        }
        context?.write(Self.wrapOutboundOut(payload), promise: nil)
        if !clientHasEnded {
            // The answer is complete and the client's side still open: RFC 9113 §8.1 lets the
            // server ask it to stop sending, without error (as grpc-go's server does). Without
            // it a client that never half-closes keeps the stream, and with it a graceful
            // shutdown that waits for every stream, open until the grace period ends.
            context?.write(Self.wrapOutboundOut(.rstStream(.noError)), promise: nil)
        }
        context?.flush()
        logCall(status: frame.headers.first(name: "grpc-status"), message: frame.headers.first(name: "grpc-message"))
    }

    /// The call's request-log line (`POST /shop.v1.Catalog/GetItem 200 ... gRPC OK replayed`),
    /// its session's journal entry, its Live view event and its share of the summary.
    private func logCall(status: String?, message: String?) {
        guard !logged else { return }
        logged = true
        let name = status.map(GRPCStatusCode.name(of:)) ?? "no status"
        service.served.log.answered(method: .POST, target: path, status: "200", outcome: "gRPC \(name) \(outcome.logWord)", started: started)
        service.report(path: path, status: name, message: message.flatMap { $0.isEmpty ? nil : GRPCMessageText.decode($0) }, outcome: outcome, started: started)
    }

    /// Ends the call with `code`: trailers after anything sent, or a trailers-only answer.
    private func fail(_ code: GRPCStatusCode, _ message: String) {
        mode = .done
        if sentHeaders {
            write(.headers(.init(headers: GRPCHeaders.trailers(GRPCHeaders.status(code, message)), endStream: true)))
        } else {
            sentHeaders = true
            write(.headers(.init(headers: GRPCHeaders.trailersOnly(code, message), endStream: true)))
        }
    }

    /// What the upstream sent, passed on as it came (already recorded by the call).
    private func relayToClient(_ payload: HTTP2Frame.FramePayload) {
        // The call was already ended towards the client (cut, or a broken client message).
        guard case .relay = mode else { return }
        switch payload {
        case .headers(let headers):
            sentHeaders = true
            if headers.endStream { mode = .done }
            write(payload)
        case .data:
            write(payload)
        default:
            break
        }
    }
}

@available(*, unavailable)
extension GRPCStreamHandler: Sendable {}
