import CassetteTools
import Foundation
import NIOCore
import NIOHTTP1
import WellPlateCore
import WellPlateNetworking

/// Sending answers: after the replay latency, through one writer for both answer forms.
extension ProxyHandler {
    func send(_ answer: ProxyAnswer, context: ChannelHandlerContext, head: HTTPRequestHead, started: NIODeadline, forceClose: Bool = false) {
        guard answer.delay > .zero else {
            write(answer, context: context, head: head, started: started, forceClose: forceClose)
            return
        }
        schedule(after: answer.delay, context: context) { handler, context in
            handler.write(answer, context: context, head: head, started: started, forceClose: forceClose)
        }
    }

    /// Runs `body` on the event loop after `delay` (the replay latency). Callers write at once
    /// when there is none, sparing the hot path a closure.
    func schedule(after delay: Duration, context: ChannelHandlerContext, _ body: @escaping @Sendable (ProxyHandler, ChannelHandlerContext) -> Void) {
        let boundSelf = NIOLoopBound(self, eventLoop: context.eventLoop)
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: TimeAmount(delay)) {
            body(boundSelf.value, boundContext.value)
        }
    }

    private func write(_ answer: ProxyAnswer, context: ChannelHandlerContext, head: HTTPRequestHead, started: NIODeadline, forceClose: Bool) {
        let answer = server.upstreamURLs?.served(answer, proxyBase: ProxyBase.of(head, localAddress: context.channel.localAddress)) ?? answer
        let close = forceClose || !head.isKeepAlive
        var headers = ResponseHeaders.make(from: answer.headerFields, bodyCount: answer.body.count, requestMethod: head.method, statusCode: answer.statusCode)
        headers.add(name: "X-Cassette", value: answer.source.headerValue)
        let responseHead = HTTPResponseHead(
            version: head.version, status: HTTPResponseStatus(statusCode: answer.statusCode), headers: Self.connectionHeaders(headers, for: head, close: close))
        let sendsBody = head.method != .HEAD && !answer.body.isEmpty && HTTPFraming.statusAllowsBody(answer.statusCode)
        // Logged before it goes out: a request the client sends once it has this answer is then
        // logged later, whichever event loop takes it (the log orders lines by when they came).
        server.log(head: head, statusCode: answer.statusCode, source: answer.source, started: started, shard: logShard)
        write(responseHead, body: sendsBody ? context.channel.allocator.buffer(bytes: answer.body) : nil, close: close, context: context)
    }

    /// `logTarget`: the request's target already redacted, when the caller has it.
    func write(_ prepared: PreparedResponse, context: ChannelHandlerContext, head: HTTPRequestHead, logTarget: String?, started: NIODeadline) {
        if let urls = prepared.upstreamURLs, urls.preparedBase != ProxyBase.of(head, localAddress: context.channel.localAddress) {
            // Prepared for another address than this client used: rewritten now.
            if let notice = prepared.staleNotice, let policy = server.settings.stalePolicy {
                server.warn(policy.report(method: head.method.rawValue, target: logTarget ?? server.redactedTarget(head.uri), notice: notice), shard: logShard)
            }
            write(urls.original, context: context, head: head, started: started, forceClose: false)
            return
        }
        let close = !head.isKeepAlive
        // The usual case, an HTTP/1.1 keep-alive request, gets the head built at start-up.
        let responseHead =
            !close && head.version == .http1_1
            ? prepared.keepAliveHead
            : HTTPResponseHead(version: head.version, status: prepared.status, headers: Self.connectionHeaders(prepared.headers, for: head, close: close))
        server.logReplayed(
            method: head.method, redactedTarget: logTarget ?? server.redactedTarget(head.uri), prepared: prepared, started: started, shard: logShard)
        write(responseHead, body: prepared.body, close: close, context: context)
    }

    /// The one place a response goes out: head, body, end, then the connection closed if asked.
    private func write(_ responseHead: HTTPResponseHead, body: ByteBuffer?, close: Bool, context: ChannelHandlerContext) {
        context.write(Self.wrapOutboundOut(.head(responseHead)), promise: nil)
        if let body {
            context.write(Self.wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        }
        if close {
            context.writeAndFlush(Self.wrapOutboundOut(.end(nil))).whenComplete { [channel = context.channel] _ in
                channel.close(promise: nil)
            }
        } else {
            context.writeAndFlush(Self.wrapOutboundOut(.end(nil)), promise: nil)
        }
    }

    /// `Connection: close` when the connection ends after this response; an HTTP/1.0 client that
    /// asked to keep it open is told so, since keep-alive is not its default.
    static func connectionHeaders(_ headers: HTTPHeaders, for request: HTTPRequestHead, close: Bool) -> HTTPHeaders {
        var headers = headers
        if close {
            headers.replaceOrAdd(name: "connection", value: "close")
        } else if request.version.major == 1 && request.version.minor == 0 {
            headers.replaceOrAdd(name: "connection", value: "keep-alive")
        }
        return headers
    }
}
