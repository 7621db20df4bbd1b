import Foundation
import NIOCore
import NIOHTTP1
import WellPlateCore

/// The one writer: every answer goes out here, after its delay, whatever its form. Logged before
/// its end goes out, so a request the client sends once it has this answer is logged later,
/// whichever event loop takes it (the log orders lines by when they came).
package struct AnswerWriter: Sendable {
    package let log: ProxyLog
    /// Names a request in its log line when the caller did not work the target out already.
    package let namer: any RequestNaming
    /// `nil` when URL rewriting is off or no upstream is known.
    package let upstreamURLs: (any AnswerRewriter)?
    /// A session's journal (`nil` on the main port): each answer goes in before it goes out.
    package var journal: (any AnswerJournal)?
    /// The UI's Live view: told of every answer but the proxy's own endpoints'.
    package var live: (any AnswerFeed)?
    /// The session's id in live events (`nil` on the main port).
    package var liveSession: String?

    package init(
        log: ProxyLog, namer: any RequestNaming, upstreamURLs: (any AnswerRewriter)? = nil, journal: (any AnswerJournal)? = nil, live: (any AnswerFeed)? = nil,
        liveSession: String? = nil
    ) {
        self.log = log
        self.namer = namer
        self.upstreamURLs = upstreamURLs
        self.journal = journal
        self.live = live
        self.liveSession = liveSession
    }

    /// One request being answered: what the writer needs to know about it.
    package struct Request: Sendable {
        package let head: HTTPRequestHead
        package let started: NIODeadline
        /// The target, redacted, when the caller has it (the replay hot path does).
        package var logTarget: String?
        /// The target as the log line shows it, when the caller worked it out (the replay hot
        /// path does, once per target): otherwise the log target named by its GraphQL operation.
        package var lineTarget: String? = nil
        /// The request's key, when the caller has it (for a session's journal).
        package var key: String?
        /// The connection's event loop's request-log buffer.
        package var shard: Int

        package init(
            head: HTTPRequestHead, started: NIODeadline, logTarget: String? = nil, lineTarget: String? = nil, key: String? = nil, shard: Int = 0
        ) {
            self.head = head
            self.started = started
            self.logTarget = logTarget
            self.lineTarget = lineTarget
            self.key = key
            self.shard = shard
        }
    }

    /// Sends `answer` after its delay; `forceClose` closes the connection after it whatever the
    /// request asked.
    package func send(_ answer: ProxyAnswer, to request: Request, forceClose: Bool = false, context: ChannelHandlerContext) {
        guard answer.delay > .zero else {
            write(answer, to: request, forceClose: forceClose, context: context)
            return
        }
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: TimeAmount(answer.delay)) {
            write(answer, to: request, forceClose: forceClose, context: boundContext.value)
        }
    }

    private func write(_ answer: ProxyAnswer, to request: Request, forceClose: Bool, context: ChannelHandlerContext) {
        // Most answers go out as they are: only one with upstream URLs to rewrite is copied.
        guard answer.upstreamURLs != nil || upstreamURLs != nil else {
            writeOut(answer, to: request, forceClose: forceClose, context: context)
            return
        }
        let head = request.head
        var answer = answer
        if let urls = answer.upstreamURLs, urls.preparedBase != ProxyBase.of(head, localAddress: context.channel.localAddress) {
            // Made for another address than this client used: the recorded answer, rewritten now.
            let (notice, chunked) = (answer.staleNotice, answer.chunkedAsRecorded)
            answer = urls.original
            answer.staleNotice = notice
            answer.chunkedAsRecorded = chunked
        }
        if let upstreamURLs, case .fields = answer.head {
            answer = upstreamURLs.served(
                answer, proxyBase: ProxyBase.of(head, localAddress: context.channel.localAddress),
                ownBase: ProxyBase.own(head, localAddress: context.channel.localAddress))
        }
        writeOut(answer, to: request, forceClose: forceClose, context: context)
    }

    private func writeOut(_ answer: ProxyAnswer, to request: Request, forceClose: Bool, context: ChannelHandlerContext) {
        let head = request.head
        let target = request.logTarget ?? namer.logTarget(of: head)
        if let notice = answer.staleNotice { log.stale(notice, method: head.method, target: target, shard: request.shard) }
        journal?.add(
            method: head.method, origin: log.targetPrefix.isEmpty ? nil : log.targetPrefix, target: target, key: request.key, answer: answer,
            started: request.started, shard: request.shard)

        if answer.source != .endpoint {
            announce(method: head.method, target: target, status: answer.statusCode, source: answer.source, miss: answer.miss, started: request.started)
        }
        var close = forceClose || !head.keepsConnectionOpen
        var responseHead: HTTPResponseHead
        let status: String
        switch answer.head {
        case .prepared(let prepared):
            status = prepared.logStatus
            if !close && (head.version == .http1_1 || head.version.major == 2) {
                // The usual case, an HTTP/1.1 keep-alive request, gets the head made at start-up;
                // so does an HTTP/2 stream (its codec drops the version and connection headers).
                responseHead = prepared.keepAliveHead
            } else {
                responseHead = HTTPResponseHead(
                    version: head.version, status: prepared.status, headers: Self.connectionHeaders(prepared.headers, for: head, close: close))
            }
        case .fields(let statusCode, let fields):
            status = RequestLogLine.status(statusCode)
            var headers: HTTPHeaders
            switch answer.body {
            case .stream(let exchange):
                let length = exchange.head.contentLength
                // Without a length an HTTP/1.0 client can only learn the end from the connection closing.
                if head.version.major == 1 && head.version.minor == 0 && length == nil { close = true }
                headers = ResponseHeaders.forwardable(fields)
                // No Content-Length: NIO's encoder sends the body chunked.
                if let length { headers.add(name: "Content-Length", value: String(length)) }
            case .bytes(let bytes):
                headers = ResponseHeaders.make(from: fields, bodyCount: bytes.count, requestMethod: head.method, statusCode: statusCode)
            case .buffer(let buffer):
                headers = ResponseHeaders.make(from: fields, bodyCount: buffer?.readableBytes ?? 0, requestMethod: head.method, statusCode: statusCode)
            case .pieces(let buffer, _):
                headers = ResponseHeaders.make(from: fields, bodyCount: buffer.readableBytes, requestMethod: head.method, statusCode: statusCode)
            }
            headers.add(name: ControlNames.answerHeader, value: answer.source.headerValue)
            responseHead = HTTPResponseHead(
                version: head.version, status: HTTPResponseStatus(statusCode: statusCode), headers: Self.connectionHeaders(headers, for: head, close: close))
        }
        // A recording streamed without a length goes out chunked, whole or in pieces (NIO's encoder
        // chunks a head without one); HTTP/1.0 has no chunked encoding and gets the length.
        if answer.chunkedAsRecorded && head.method != .HEAD && (head.version.major > 1 || head.version.minor >= 1) {
            responseHead.headers.remove(name: "content-length")
        }

        let line = LogLine(
            log: log, method: head.method, target: request.lineTarget ?? GraphQLKeyPart.loggedTarget(target, key: request.key), status: status,
            outcome: RequestLogLine.outcome(answer.source), started: request.started)
        let sendsBody = head.method != .HEAD && HTTPFraming.statusAllowsBody(answer.statusCode)
        switch answer.body {
        case .bytes(let bytes):
            line.write(shard: request.shard)
            writeWhole(
                responseHead, body: sendsBody && !bytes.isEmpty ? context.channel.allocator.buffer(bytes: bytes) : nil, close: close, lingers: forceClose,
                context: context)
        case .buffer(let buffer):
            line.write(shard: request.shard)
            writeWhole(responseHead, body: sendsBody ? buffer : nil, close: close, lingers: forceClose, context: context)
        case .pieces(let body, let pieces):
            context.writeAndFlush(HTTPConnectionHandler.wrapOutboundOut(.head(responseHead)), promise: nil)
            PieceWriter(body: body, pieces: pieces, close: close, line: line, shard: request.shard).start(context: context)
        case .stream(let exchange):
            context.writeAndFlush(HTTPConnectionHandler.wrapOutboundOut(.head(responseHead)), promise: nil)
            let pump = StreamPump(context: NIOLoopBound(context, eventLoop: context.eventLoop), loop: context.eventLoop, close: close, line: line)
            Task { await pump.run(exchange) }
        }
    }

    /// Whether `send(_:head:target:started:shard:context:)` may write prepared replies: no
    /// session's journal to add each answer to. (URLs are rewritten into a prepared answer when
    /// it is made; one that needs them rewritten again per client is no `PreparedReply`.)
    package var writesRepliesAsPrepared: Bool { journal == nil }

    /// The replay hot path's write: `reply` to an HTTP/1.1 keep-alive request or an HTTP/2 stream,
    /// as it was prepared (only where `writesRepliesAsPrepared`); on a stream with `outlet`, as
    /// frames. Logged and announced as `writeOut` does.
    package func send(
        _ reply: PreparedReply, head: HTTPRequestHead, logTarget: String, lineTarget: String, started: NIODeadline, shard: Int, context: ChannelHandlerContext,
        outlet: HTTP2ReplyOutlet? = nil
    ) {
        let body = noteSending(reply, head: head, logTarget: logTarget, lineTarget: lineTarget, started: started, shard: shard)
        if let outlet, outlet.write(reply.head, body: body) { return }
        writeWhole(reply.head.keepAliveHead, body: body, close: false, lingers: false, context: context)
    }

    /// The same write for a request that opened an HTTP/2 stream answered at the connection
    /// (`HTTP2PlainReplies`): its frames on the connection.
    package func send(_ reply: PreparedReply, head: HTTPRequestHead, logTarget: String, lineTarget: String, started: NIODeadline, stream: HTTP2PlainStream) {
        let body = noteSending(reply, head: head, logTarget: logTarget, lineTarget: lineTarget, started: started, shard: stream.logShard)
        stream.write(reply.head, body: body)
    }

    /// Announces and logs a prepared reply about to go out, wherever it goes; its body for
    /// `head` (`nil` for HEAD and statuses without one).
    private func noteSending(
        _ reply: PreparedReply, head: HTTPRequestHead, logTarget: String, lineTarget: String, started: NIODeadline, shard: Int
    ) -> ByteBuffer? {
        announce(method: head.method, target: logTarget, status: Int(reply.head.status.code), source: reply.source, miss: nil, started: started)
        log.answered(
            method: head.method, target: lineTarget, status: reply.head.logStatus, outcome: RequestLogLine.outcome(reply.source), started: started,
            shard: shard)
        return head.method != .HEAD && reply.statusAllowsBody ? reply.body : nil
    }

    /// Tells the UI's Live view of an answer; costs one atomic load while nobody follows.
    private func announce(method: NIOHTTP1.HTTPMethod, target: String, status: Int, source: ProxyAnswer.Source, miss: ReportedMiss?, started: NIODeadline) {
        live?.announce(method: method, target: target, status: status, tag: source.headerValue, miss: miss, started: started, session: liveSession)
    }

    /// A whole response: head, body, end, then the connection closed if asked; `lingers`: an
    /// error answer sent before the request's end, whose close drains what the client still
    /// sends (`LingeringClose`).
    private func writeWhole(_ responseHead: HTTPResponseHead, body: ByteBuffer?, close: Bool, lingers: Bool, context: ChannelHandlerContext) {
        context.write(HTTPConnectionHandler.wrapOutboundOut(.head(responseHead)), promise: nil)
        if let body {
            context.write(HTTPConnectionHandler.wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        }
        if lingers {
            context.writeAndFlush(HTTPConnectionHandler.wrapOutboundOut(.end(nil)), promise: nil)
            LingeringClose.start(context)
        } else if close {
            context.writeAndFlush(HTTPConnectionHandler.wrapOutboundOut(.end(nil))).whenComplete { [channel = context.channel] _ in
                channel.close(promise: nil)
            }
        } else {
            context.writeAndFlush(HTTPConnectionHandler.wrapOutboundOut(.end(nil)), promise: nil)
        }
    }

    /// `Connection: close` when the connection ends after this response; an HTTP/1.0 client that
    /// asked to keep it open is told so, since keep-alive is not its default.
    package static func connectionHeaders(_ headers: HTTPHeaders, for request: HTTPRequestHead, close: Bool) -> HTTPHeaders {
        var headers = headers
        if close {
            headers.replaceOrAdd(name: "connection", value: "close")
        } else if request.version.major == 1 && request.version.minor == 0 {
            headers.replaceOrAdd(name: "connection", value: "keep-alive")
        }
        return headers
    }
}

/// The request-log line of one answer, written once its body is out (or has failed).
package struct LogLine: Sendable {
    package let log: ProxyLog
    package let method: NIOHTTP1.HTTPMethod
    package let target: String
    package let status: String
    package let outcome: String
    package let started: NIODeadline

    package func write(outcome: String? = nil, detail: String? = nil, shard: Int = 0) {
        log.answered(method: method, target: target, status: status, outcome: outcome ?? self.outcome, started: started, detail: detail, shard: shard)
    }
}
