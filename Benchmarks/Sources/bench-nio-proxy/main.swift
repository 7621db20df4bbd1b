import BenchServer
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

// A ceiling for the record benchmark: a minimal SwiftNIO reverse proxy. Each client
// connection gets one keep-alive connection to the upstream on the same event loop, and every
// request and response part is relayed as it is: no libcurl, no thread hand-off, nothing stored.
// Usage: bench-nio-proxy UPSTREAM_PORT [PORT]

let arguments = CommandLine.arguments
guard arguments.count >= 2, let upstreamPort = Int(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: bench-nio-proxy UPSTREAM_PORT [PORT]\n".utf8))
    exit(2)
}
let port = arguments.count > 2 ? Int(arguments[2]) ?? 0 : 0

/// The client side: relays each request to the upstream connection, connected when the client
/// connects; parts that arrive before it is up wait in order.
final class FrontHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let upstreamPort: Int
    private var upstream: Channel?
    private var waiting: [HTTPClientRequestPart] = []

    init(upstreamPort: Int) {
        self.upstreamPort = upstreamPort
    }

    func channelActive(context: ChannelHandlerContext) {
        let front = context.channel
        ClientBootstrap(group: context.eventLoop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(BackHandler(front: front))
                }
            }
            .connect(host: "127.0.0.1", port: upstreamPort)
            .assumeIsolated()
            .whenComplete { result in
                switch result {
                case .success(let channel):
                    self.upstream = channel
                    for part in self.waiting { channel.write(part, promise: nil) }
                    self.waiting = []
                    channel.flush()
                case .failure:
                    context.close(promise: nil)
                }
            }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part: HTTPClientRequestPart =
            switch Self.unwrapInboundIn(data) {
            case .head(let head): .head(head)
            case .body(let buffer): .body(.byteBuffer(buffer))
            case .end(let trailers): .end(trailers)
            }
        guard let upstream else {
            waiting.append(part)
            return
        }
        if case .end = part {
            upstream.writeAndFlush(part, promise: nil)
        } else {
            upstream.write(part, promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        upstream?.close(promise: nil)
        context.fireChannelInactive()
    }
}

/// The upstream side: relays each response part back to the client connection.
final class BackHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let front: Channel

    init(front: Channel) {
        self.front = front
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .head(let head): front.write(HTTPServerResponsePart.head(head), promise: nil)
        case .body(let buffer): front.write(HTTPServerResponsePart.body(.byteBuffer(buffer)), promise: nil)
        case .end(let trailers): front.writeAndFlush(HTTPServerResponsePart.end(trailers), promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        front.close(promise: nil)
        context.fireChannelInactive()
    }
}

try await BenchServer.run(port: port) { FrontHandler(upstreamPort: upstreamPort) }
