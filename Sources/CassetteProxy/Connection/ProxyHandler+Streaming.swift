import CassetteTools
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import WellPlateCore
import WellPlateNetworking

/// Streamed answers: a forwarded response written chunk by chunk as the upstream sends it, and a
/// streamed recording replayed in its recorded pieces (at their recorded times with
/// `--latency recorded`).
extension ProxyHandler {
    /// Forwards a request in a task; the answer is written whole or, when it streams, as it arrives.
    func forward(_ request: TransportRequest, context: ChannelHandlerContext, head: HTTPRequestHead, started: NIODeadline) {
        let responder = server.responder
        let promise = context.eventLoop.makePromise(of: ProxyResponder.StreamedAnswer.self)
        let isHead = head.method == .HEAD
        Task(executorPreference: taskExecutor(on: context.eventLoop)) {
            // HEAD answers have no body to stream.
            promise.succeed(isHead ? .whole(await responder.answer(request)) : await responder.answerStreaming(request))
        }
        let boundSelf = NIOLoopBound(self, eventLoop: context.eventLoop)
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        promise.futureResult.whenSuccess { answer in
            switch answer {
            case .whole(let answer):
                boundSelf.value.send(answer, context: boundContext.value, head: head, started: started)
            case .streaming(let exchange):
                boundSelf.value.stream(exchange, context: boundContext.value, head: head, started: started)
            case .replay(let interaction):
                boundSelf.value.replayStreamed(interaction, context: boundContext.value, head: head, started: started)
            }
        }
    }

    /// Writes the head now and each chunk as it arrives. A slow client holds the next chunk back
    /// (each write is awaited), which in turn pauses the upstream transfer once its buffer is full.
    private func stream(_ exchange: StreamingExchange, context: ChannelHandlerContext, head: HTTPRequestHead, started: NIODeadline) {
        let length = exchange.head.contentLength
        // Without a length an HTTP/1.0 client can only learn the end from the connection closing.
        let close = !head.isKeepAlive || (head.version.major == 1 && head.version.minor == 0 && length == nil)
        var fields = exchange.head.headerFields
        if let urls = server.upstreamURLs, let rewritten = urls.rewritten(fields, proxyBase: ProxyBase.of(head, localAddress: context.channel.localAddress)) {
            fields = rewritten
        }
        var headers = ResponseHeaders.forwardable(fields)
        // No Content-Length: NIO's encoder sends the body chunked.
        if let length { headers.add(name: "Content-Length", value: String(length)) }
        let source: ProxyAnswer.Source = exchange.outcome == .recorded ? .recorded : .passthrough
        headers.add(name: "X-Cassette", value: source.headerValue)
        let status = exchange.head.statusCode
        let responseHead = HTTPResponseHead(
            version: head.version, status: HTTPResponseStatus(statusCode: status), headers: Self.connectionHeaders(headers, for: head, close: close))
        context.writeAndFlush(Self.wrapOutboundOut(.head(responseHead)), promise: nil)

        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        let pump = StreamPump(
            context: boundContext, loop: context.eventLoop, server: server, request: head, status: status, source: source, close: close, started: started)
        Task { await pump.run(exchange) }
    }

    /// A streamed recording the responder replayed; one leading back to the upstream is answered
    /// whole, by the writer that rewrites its URLs.
    private func replayStreamed(_ interaction: Interaction, context: ChannelHandlerContext, head: HTTPRequestHead, started: NIODeadline) {
        guard server.upstreamURLs == nil, let chunks = interaction.chunks else {
            send(
                ProxyAnswer(interaction.response, source: .replayed, delay: server.settings.replayDelay(recorded: interaction.duration)), context: context,
                head: head, started: started)
            return
        }
        replayStreamed(PreparedResponse(interaction), chunks: chunks, context: context, head: head, logTarget: nil, started: started)
    }

    /// A streamed recording in its recorded pieces, each a chunk of its own; with
    /// `--latency recorded` the head waits the recorded time to the head and each piece its offset.
    func replayStreamed(
        _ prepared: PreparedResponse, chunks: [ResponseChunk], context: ChannelHandlerContext, head: HTTPRequestHead, logTarget: String?, started: NIODeadline
    ) {
        let close = !head.isKeepAlive
        var headers = prepared.headers
        // HTTP/1.0 has no chunked encoding: the pieces go out under the whole length.
        if head.version.major > 1 || head.version.minor >= 1 { headers.remove(name: "content-length") }
        let body = prepared.body ?? ByteBuffer()
        var pieces = ResponseChunk.pieces(ofBodyCount: body.readableBytes, by: chunks)
        let headDelay: Duration
        switch server.settings.latency {
        case .none:
            headDelay = .zero
        case .recorded:
            headDelay = max(.zero, prepared.duration - (pieces.last?.offset ?? .zero))
        case .fixed(let fixed):
            headDelay = fixed
        }
        if server.settings.latency != .recorded {
            for index in pieces.indices { pieces[index].offset = .zero }
        }
        let replay = StreamedReplay(
            head: HTTPResponseHead(version: head.version, status: prepared.status, headers: Self.connectionHeaders(headers, for: head, close: close)),
            body: body, pieces: pieces, close: close, request: head, target: logTarget ?? server.redactedTarget(head.uri),
            prepared: prepared, started: started)
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        let server = self.server
        context.eventLoop.scheduleTask(in: TimeAmount(headDelay)) {
            boundContext.value.writeAndFlush(Self.wrapOutboundOut(.head(replay.head)), promise: nil)
            Self.writePieces(replay, from: 0, headSent: .now(), context: boundContext, server: server)
        }
    }

    private struct StreamedReplay: Sendable {
        let head: HTTPResponseHead
        let body: ByteBuffer
        let pieces: [(offset: Duration, bytes: Range<Int>)]
        let close: Bool
        let request: HTTPRequestHead
        let target: String
        let prepared: PreparedResponse
        let started: NIODeadline
    }

    /// Writes the pieces from `index` on, each when it is due, then the end.
    private static func writePieces(
        _ replay: StreamedReplay, from index: Int, headSent: NIODeadline, context: NIOLoopBound<ChannelHandlerContext>, server: ProxyServerContext
    ) {
        var index = index
        while index < replay.pieces.count {
            let piece = replay.pieces[index]
            let due = headSent + TimeAmount(piece.offset)
            if due > .now() {
                let next = index
                context.value.eventLoop.scheduleTask(deadline: due) {
                    writePieces(replay, from: next, headSent: headSent, context: context, server: server)
                }
                return
            }
            let slice = replay.body.getSlice(at: replay.body.readerIndex + piece.bytes.lowerBound, length: piece.bytes.count) ?? ByteBuffer()
            context.value.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(slice))), promise: nil)
            index += 1
        }
        // Logged before the end goes out, like every answer (`ProxyHandler.write`).
        server.logReplayed(method: replay.request.method, redactedTarget: replay.target, prepared: replay.prepared, started: replay.started)
        let end = context.value.writeAndFlush(wrapOutboundOut(.end(nil)))
        if replay.close {
            end.whenComplete { _ in context.value.close(promise: nil) }
        }
    }

}

/// Moves one streamed answer from the upstream to the client, a chunk at a time.
private struct StreamPump: Sendable {
    let context: NIOLoopBound<ChannelHandlerContext>
    let loop: any EventLoop
    package let server: ProxyServerContext
    let request: HTTPRequestHead
    let status: Int
    package let source: ProxyAnswer.Source
    let close: Bool
    let started: NIODeadline

    func run(_ exchange: StreamingExchange) async {
        var exchange = exchange
        while true {
            let chunk: Data?
            do {
                chunk = try await exchange.next()
            } catch {
                // Closing without the final chunk (or short of Content-Length) tells the client.
                closeConnection()
                let silent = (error as? TransportError)?.kind == .timeout
                log(
                    Self.aborted,
                    silent
                        ? "upstream went silent for longer than --upstream-timeout after \(exchange.receivedBytes) bytes; not recorded"
                        : "upstream aborted after \(exchange.receivedBytes) bytes; not recorded")
                return
            }
            guard let chunk else { break }
            guard await write(.body(.byteBuffer(ByteBuffer(bytes: chunk)))) else {
                // Dropping the exchange cancels the upstream transfer.
                log(Self.aborted, "client went away after \(exchange.receivedBytes) bytes; not recorded")
                return
            }
        }
        var detail: String?
        do {
            // Stored before the end goes out: once a client has the whole answer, so has the store.
            _ = try await exchange.finish()
        } catch {
            if let failure = error as? RecordingFailure { Terminal.printError(failure.description) }
            detail = "not recorded: \((error as? RecordingFailure)?.underlying.message ?? String(describing: error))"
        }
        // Logged before the end goes out, like every answer (`ProxyHandler.write`).
        log(RequestLogLine.outcome(source), detail)
        _ = await write(.end(nil))
        if close { closeConnection() }
    }

    /// Writes and flushes one part on the event loop; `false` when the client is gone.
    private func write(_ part: HTTPServerResponsePart) async -> Bool {
        let context = self.context
        do {
            try await loop.flatSubmit {
                context.value.writeAndFlush(ProxyHandler.wrapOutboundOut(part))
            }.get()
            return true
        } catch {
            return false
        }
    }

    private func closeConnection() {
        let context = self.context
        loop.execute { context.value.close(promise: nil) }
    }

    private func log(_ outcome: String, _ detail: String?) {
        server.logStream(head: request, status: status, started: started, outcome: outcome, detail: detail)
    }

    private static let aborted = Terminal.paint("aborted", .red)
}

extension ProxyServerContext {
    /// The request-log line of a streamed answer, with what went wrong when it did; an abort is
    /// reported even when requests are not logged.
    func logStream(head: HTTPRequestHead, status: Int, started: NIODeadline, outcome: String, detail: String?) {
        let target = redactedTarget(head.uri, secretHeaders: secretHeaders(head))
        guard let requestLog else {
            if let detail { FileHandle.standardError.write(Data("\(head.method.rawValue) \(target): \(detail)\n".utf8)) }
            return
        }
        let statusText = RequestLogLine.status(status)
        requestLog.log { line in
            RequestLogLine.append(method: head.method, target: target, status: statusText, started: started, outcome: outcome, to: &line)
            if let detail { line.append(contentsOf: " (\(detail))".utf8) }
        }
    }
}
