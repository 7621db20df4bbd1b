import NIOCore
import NIOHTTP1

/// Answers unparseable HTTP with a JSON 400 and closes that connection.
///
/// Modelled on NIO's `HTTPServerProtocolErrorHandler`, which answers with an empty body; every
/// error from the sample API is JSON, including this one.
final class MalformedRequestResponder: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// A 400 can only be sent while no other response is half written.
    private var hasUnterminatedResponse = false

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        if !hasUnterminatedResponse {
            let body = ByteBuffer(
                bytes: JSONValue.object([
                    "error": "bad_request",
                    "message": .string("Malformed HTTP request (\(error)); the connection is closed"),
                ]).serializedBytes)
            let headers: HTTPHeaders = [
                "Content-Type": "application/json; charset=utf-8",
                "Content-Length": String(body.readableBytes),
                "Connection": "close",
            ]
            context.write(Self.wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))), promise: nil)
            context.write(Self.wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            let context = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.value.writeAndFlush(Self.wrapOutboundOut(.end(nil))).whenComplete { _ in
                context.value.close(promise: nil)
            }
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
extension MalformedRequestResponder: Sendable {}
