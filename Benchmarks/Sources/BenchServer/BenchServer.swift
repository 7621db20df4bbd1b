import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// The HTTP/1.1 server the benchmark's own servers share (`bench-baseline`, `bench-nio-proxy`):
/// NIO's defaults with pipelining assistance, one event loop per core, the socket options
/// `cassette` uses, on 127.0.0.1.
public enum BenchServer {
    /// Listens on `port` (0: a free one), prints `listening on URL` and serves until the process
    /// ends; `makeHandler` makes each connection's handler behind the HTTP codecs.
    public static func run(port: Int, makeHandler: @escaping @Sendable () -> any ChannelHandler) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withPipeliningAssistance: true)
                    try channel.pipeline.syncOperations.addHandler(makeHandler())
                }
            }
            .bind(host: "127.0.0.1", port: port).get()
        print("listening on http://127.0.0.1:\(channel.localAddress?.port ?? 0)")
        // The parent reads this line through a pipe, where output is block-buffered.
        fflush(nil)
        try await channel.closeFuture.get()
    }
}
