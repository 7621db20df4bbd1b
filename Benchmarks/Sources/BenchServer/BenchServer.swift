import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// The server the benchmark's own servers share (`bench-baseline`, `bench-nio-proxy`,
/// `bench-rest-bare`, `bench-grpc`, `bench-websocket`): one event loop per core and the socket
/// options `cassette`'s listeners use (`ProxyServer`), on 127.0.0.1, so a baseline differs from the
/// proxy only in what it does with a connection.
public enum BenchServer {
    /// Listens on `port` (0: a free one), prints `listening on URL` and serves until the process
    /// ends; `configure` sets up each connection's pipeline.
    public static func run(port: Int, configure: @escaping @Sendable (ChannelPipeline.SynchronousOperations) throws -> Void) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try configure(channel.pipeline.syncOperations) }
            }
            .bind(host: "127.0.0.1", port: port).get()
        print("listening on http://127.0.0.1:\(channel.localAddress?.port ?? 0)")
        // The parent reads this line through a pipe, where output is block-buffered.
        fflush(nil)
        try await channel.closeFuture.get()
    }

    /// An HTTP/1.1 server: NIO's defaults with pipelining assistance; `makeHandler` makes each
    /// connection's handler behind the HTTP codecs.
    public static func run(port: Int, makeHandler: @escaping @Sendable () -> any ChannelHandler) async throws {
        try await run(port: port) { pipeline in
            try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: true)
            try pipeline.addHandler(makeHandler())
        }
    }
}
