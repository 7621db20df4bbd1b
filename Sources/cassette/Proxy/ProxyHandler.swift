import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import WellPlateNetworking

/// One client connection: collects each request (head and body, up to the size limit), asks the
/// responder for the answer and writes it. `HTTPServerPipelineHandler` in front of it delivers one
/// request at a time, so pipelined requests are answered in order.
final class ProxyHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        case idle
        case receiving(HTTPRequestHead, ByteBuffer?, started: NIODeadline)
        /// The body passed the limit: the 413 is sent, the rest of the request is ignored.
        case discarding
    }

    private let server: ProxyServerContext
    private var state = State.idle
    private var targetCache: [CachedTarget.Key: CachedTarget] = [:]

    init(server: ProxyServerContext) {
        self.server = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (Self.unwrapInboundIn(data), state) {
        case (.head(let head), _):
            let started = NIODeadline.now()
            if let length = head.headers.first(name: "content-length").flatMap(Int.init), length > server.configuration.maxBodySize {
                rejectTooLarge(context: context, head: head, started: started)
                return
            }
            state = .receiving(head, nil, started: started)
        case (.body(var chunk), .receiving(let head, var body, let started)):
            if (body?.readableBytes ?? 0) + chunk.readableBytes > server.configuration.maxBodySize {
                rejectTooLarge(context: context, head: head, started: started)
                return
            }
            if body == nil {
                body = chunk
            } else {
                body!.writeBuffer(&chunk)
            }
            state = .receiving(head, body, started: started)
        case (.end, .receiving(let head, let body, let started)):
            state = .idle
            handle(context: context, head: head, body: body, started: started)
        case (.end, .discarding):
            state = .idle
        case (.body, _), (.end, .idle):
            break
        }
    }

    // MARK: Dispatch

    private func handle(context: ChannelHandlerContext, head: HTTPRequestHead, body: ByteBuffer?, started: NIODeadline) {
        if head.uri.hasPrefix(ProxyEndpoints.prefix) {
            send(server.endpoints.answer(for: head), context: context, head: head, started: started)
            return
        }
        if server.answersSynchronously {
            replayNow(context: context, head: head, body: body, started: started)
            return
        }
        let responder = server.responder
        let request: TransportRequest
        do {
            request = try server.requestBuilder.transportRequest(head: head, body: body)
        } catch {
            send(.json(error.status, ["error": .string(error.code), "message": .string(error.message)], source: .error), context: context, head: head, started: started)
            return
        }
        let promise = context.eventLoop.makePromise(of: ProxyAnswer.self)
        promise.completeWithTask { await responder.answer(request) }
        let boundSelf = NIOLoopBound(self, eventLoop: context.eventLoop)
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        promise.futureResult.whenSuccess { answer in
            boundSelf.value.send(answer, context: boundContext.value, head: head, started: started)
        }
    }

    /// The replay-only hot path: the key from the target text, the answer prepared at start-up.
    private func replayNow(context: ChannelHandlerContext, head: HTTPRequestHead, body: ByteBuffer?, started: NIODeadline) {
        let prepared: PreparedResponse
        var logTarget: String?
        do {
            let method = try ProxyRequestBuilder.method(head)
            let responses = server.prepared
            if head.method == .HEAD {
                // Headers only, with the recorded GET length: not the prepared form.
                let interaction = try server.session.replayInteraction(keyText: try cachedTarget(method: method, uri: head.uri).keyText)
                send(ProxyAnswer(interaction.response, source: .replayed, delay: server.configuration.replayDelay(recorded: interaction.duration)), context: context, head: head, started: started)
                return
            } else if let body, body.readableBytes > 0 {
                let target = try server.requestBuilder.upstreamTarget(head.uri)
                let interaction = try server.session.replayInteraction(method: method, target: target, contentType: head.headers.first(name: "content-type"), body: Data(body.readableBytesView))
                prepared = responses.response(for: interaction)
            } else {
                let cached = try cachedTarget(method: method, uri: head.uri)
                logTarget = cached.logTarget
                let session = server.session
                let id = if let slot = cached.slot {
                    try session.replayRecordingID(slot: slot, keyText: cached.keyText)
                } else {
                    try session.replayRecordingID(keyText: cached.keyText)
                }
                guard let found = id.flatMap(responses.response(id:)) else {
                    // Every recording of a replay-only proxy is prepared at start-up.
                    send(.json(500, ["error": "internal_error", "message": .string("recording \(id.map(String.init) ?? "without id") of \(cached.keyText) was not prepared")], source: .error), context: context, head: head, started: started)
                    return
                }
                prepared = found
            }
        } catch let error as ProxyRequestError {
            send(.json(error.status, ["error": .string(error.code), "message": .string(error.message)], source: .error), context: context, head: head, started: started)
            return
        } catch {
            send(server.responder.answer(for: error), context: context, head: head, started: started)
            return
        }
        let delay = server.configuration.replayDelay(recorded: prepared.duration)
        let target = logTarget
        guard delay > .zero else {
            write(prepared, context: context, head: head, logTarget: target, started: started)
            return
        }
        let boundSelf = NIOLoopBound(self, eventLoop: context.eventLoop)
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: TimeAmount(delay)) {
            boundSelf.value.write(prepared, context: boundContext.value, head: head, logTarget: target, started: started)
        }
    }

    /// A client on a keep-alive connection repeats the same few requests; their keys, index slots
    /// and log paths are kept per connection (no lock), so normalization, redaction and hashing
    /// the key run once per distinct target.
    private func cachedTarget(method: WellPlateNetworking.HTTPMethod, uri: String) throws(ProxyRequestError) -> CachedTarget {
        let cacheKey = CachedTarget.Key(method: method, uri: uri)
        if let cached = targetCache[cacheKey] { return cached }
        let keyText = server.session.keyText(method: method, target: try server.requestBuilder.upstreamTarget(uri))
        let cached = CachedTarget(keyText: keyText, slot: server.session.index.slot(for: keyText), logTarget: server.redactedTarget(uri))
        if targetCache.count >= Self.targetCacheLimit { targetCache.removeAll(keepingCapacity: true) }
        targetCache[cacheKey] = cached
        return cached
    }

    private struct CachedTarget {
        struct Key: Hashable {
            let method: WellPlateNetworking.HTTPMethod
            let uri: String
        }

        let keyText: String
        /// `nil` for a key without recordings: looked up by text again, as a miss is rare.
        let slot: ReplayIndex.Slot?
        let logTarget: String
    }

    private static let targetCacheLimit = 512

    private func rejectTooLarge(context: ChannelHandlerContext, head: HTTPRequestHead, started: NIODeadline) {
        state = .discarding
        let limit = server.configuration.maxBodySize
        let answer = ProxyAnswer.json(413, [
            "error": "payload_too_large",
            "message": .string("the request body is larger than the proxy's limit of \(limit) bytes; raise it with --max-body-size"),
        ], source: .error)
        send(answer, context: context, head: head, started: started, forceClose: true)
    }

    // MARK: Writing

    private func send(_ answer: ProxyAnswer, context: ChannelHandlerContext, head: HTTPRequestHead, started: NIODeadline, forceClose: Bool = false) {
        guard answer.delay > .zero else {
            write(answer, context: context, head: head, started: started, forceClose: forceClose)
            return
        }
        let boundSelf = NIOLoopBound(self, eventLoop: context.eventLoop)
        let boundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: TimeAmount(answer.delay)) {
            boundSelf.value.write(answer, context: boundContext.value, head: head, started: started, forceClose: forceClose)
        }
    }

    private func write(_ answer: ProxyAnswer, context: ChannelHandlerContext, head: HTTPRequestHead, started: NIODeadline, forceClose: Bool) {
        let close = forceClose || !head.isKeepAlive
        var headers = ResponseHeaders.make(from: answer.headerFields, bodyCount: answer.body.count, requestMethod: head.method, statusCode: answer.statusCode)
        headers.add(name: "X-Cassette", value: answer.source.headerValue)
        if close {
            headers.replaceOrAdd(name: "connection", value: "close")
        } else if head.version.major == 1 && head.version.minor == 0 {
            headers.replaceOrAdd(name: "connection", value: "keep-alive")
        }
        let responseHead = HTTPResponseHead(version: head.version, status: HTTPResponseStatus(statusCode: answer.statusCode), headers: headers)
        context.write(Self.wrapOutboundOut(.head(responseHead)), promise: nil)
        if head.method != .HEAD && !answer.body.isEmpty && ResponseHeaders.mayHaveBody(statusCode: answer.statusCode) {
            context.write(Self.wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: answer.body)))), promise: nil)
        }
        if close {
            context.writeAndFlush(Self.wrapOutboundOut(.end(nil))).whenComplete { [channel = context.channel] _ in
                channel.close(promise: nil)
            }
        } else {
            context.writeAndFlush(Self.wrapOutboundOut(.end(nil)), promise: nil)
        }
        server.log(head: head, statusCode: answer.statusCode, source: answer.source, started: started)
    }

    /// `logTarget`: the request's target already redacted, when the caller has it.
    private func write(_ prepared: PreparedResponse, context: ChannelHandlerContext, head: HTTPRequestHead, logTarget: String?, started: NIODeadline) {
        let close = !head.isKeepAlive
        if !close && head.version == .http1_1 {
            // The usual case: the head built at start-up, shared rather than made per request.
            context.write(Self.wrapOutboundOut(.head(prepared.keepAliveHead)), promise: nil)
        } else {
            var headers = prepared.headers
            if close {
                headers.replaceOrAdd(name: "connection", value: "close")
            } else if head.version.major == 1 && head.version.minor == 0 {
                headers.replaceOrAdd(name: "connection", value: "keep-alive")
            }
            context.write(Self.wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: prepared.status, headers: headers))), promise: nil)
        }
        if let body = prepared.body {
            context.write(Self.wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        }
        if close {
            context.writeAndFlush(Self.wrapOutboundOut(.end(nil))).whenComplete { [channel = context.channel] _ in
                channel.close(promise: nil)
            }
        } else {
            context.writeAndFlush(Self.wrapOutboundOut(.end(nil)), promise: nil)
        }
        server.logReplayed(method: head.method, redactedTarget: logTarget ?? server.redactedTarget(head.uri), prepared: prepared, started: started)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // One broken connection never affects the others: close this one only.
        context.close(promise: nil)
    }
}

@available(*, unavailable)
extension ProxyHandler: Sendable {}
