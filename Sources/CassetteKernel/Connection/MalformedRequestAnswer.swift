import NIOCore
import NIOHTTP1
import WellPlateCore

/// The answer to a request that is not valid HTTP/1.1: a 400 whose JSON body says what was wrong,
/// where NIO's `HTTPServerProtocolErrorHandler` sends an empty one. `HTTPConnectionHandler.errorCaught`
/// writes it just before the connection closes.
///
/// Unlike NIO's handler, nothing tracks the responses going out to hold the answer back while one
/// is half-written, since none ever is when a parser error arrives: `HTTPServerPipelineHandler`
/// keeps parser errors back until the response in flight has ended, and the proxy starts a
/// response before the request's end only to write it whole at once (413, refused upgrades). That
/// spares every response part a handler hop and its type cast.
package enum MalformedRequestAnswer {
    package static func write(_ error: HTTPParserError, context: ChannelHandlerContext) {
        let body: JSONValue = [
            "error": "bad_request",
            "message": .string("the request is not valid HTTP/1.1 (\(error)); the proxy closed the connection, send a well-formed request on a new one"),
        ]
        var buffer = context.channel.allocator.buffer(capacity: 256)
        buffer.writeString(body.compactJSON + "\n")
        let headers = HTTPHeaders([
            ("Content-Type", "application/json; charset=utf-8"),
            ("Content-Length", String(buffer.readableBytes)),
            (ControlNames.answerHeader, ProxyAnswer.Source.error.headerValue),
            ("Connection", "close"),
        ])
        context.write(HTTPConnectionHandler.wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))), promise: nil)
        context.write(HTTPConnectionHandler.wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        context.writeAndFlush(HTTPConnectionHandler.wrapOutboundOut(.end(nil)), promise: nil)
    }
}
