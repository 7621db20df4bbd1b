import NIOCore
import NIOHTTP1
import WellPlateNetworking

/// Answers a request that is not valid HTTP/1.1 with a 400 whose JSON body says what was wrong,
/// where NIO's `HTTPServerProtocolErrorHandler` sends an empty one; otherwise the same rules: only
/// when no response has started, and the decoder closes the connection right after.
final class ProxyProtocolErrorHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private var hasUnterminatedResponse = false

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let parserError = error as? HTTPParserError, !hasUnterminatedResponse {
            // No delayed work: the decoder closes the channel as soon as this returns.
            let body: JSONValue = [
                "error": "bad_request",
                "message": .string("the request is not valid HTTP/1.1 (\(parserError)); the proxy closed the connection, send a well-formed request on a new one"),
            ]
            var buffer = context.channel.allocator.buffer(capacity: 256)
            buffer.writeString(body.compactJSON + "\n")
            let headers = HTTPHeaders([
                ("Content-Type", "application/json; charset=utf-8"),
                ("Content-Length", String(buffer.readableBytes)),
                ("X-Cassette", ProxyAnswer.Source.error.headerValue),
                ("Connection", "close"),
            ])
            context.write(Self.wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))), promise: nil)
            context.write(Self.wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
            context.writeAndFlush(Self.wrapOutboundOut(.end(nil)), promise: nil)
        }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch Self.unwrapOutboundIn(data) {
        case .head(let head) where head.status.code < 200:
            break
        case .head:
            hasUnterminatedResponse = true
        case .body:
            break
        case .end:
            hasUnterminatedResponse = false
        }
        context.write(data, promise: promise)
    }
}

@available(*, unavailable)
extension ProxyProtocolErrorHandler: Sendable {}
