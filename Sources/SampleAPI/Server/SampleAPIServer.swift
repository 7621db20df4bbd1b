import NIOCore
import NIOHTTP1
import NIOPosix

/// The listening server: accepts connections and serves each in its own task until shut down.
final class SampleAPIServer: Sendable {
    private let serverChannel: NIOAsyncChannel<HTTPConnectionChannel, Never>
    private let connections = ConnectionRegistry()
    private let router: Router
    private let log: RequestLog

    /// The bound address as a URL, with the real port when port 0 was asked for.
    let url: String

    private init(serverChannel: NIOAsyncChannel<HTTPConnectionChannel, Never>, router: Router, log: RequestLog) {
        self.serverChannel = serverChannel
        self.router = router
        self.log = log
        let address = serverChannel.channel.localAddress
        let ip = address?.ipAddress ?? "127.0.0.1"
        let host = ip.contains(":") ? "[\(ip)]" : ip
        url = "http://\(host):\(address?.port ?? 0)"
    }

    /// Binds the listening socket. Throws `BindError` when the address cannot be used.
    static func bind(host: String, port: Int, router: Router, log: RequestLog) async throws(BindError) -> SampleAPIServer {
        do {
            let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                // HTTPServerPipelineHandler needs half-closure to answer pipelined requests sent
                // before the client shut down its write side.
                .childChannelOption(.allowRemoteHalfClosure, value: true)
                .bind(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try HTTPChannelSetup.configure(channel)
                    }
                }
            return SampleAPIServer(serverChannel: channel, router: router, log: log)
        } catch {
            throw BindError(host: host, port: port, underlying: error)
        }
    }

    /// Serves until `beginShutdown()`, then waits for every connection to finish its last request.
    func run() async throws {
        try await withThrowingDiscardingTaskGroup { group in
            try await serverChannel.executeThenClose { inbound in
                for try await connection in inbound {
                    connections.track(connection.channel)
                    group.addTask { [router, log, connections] in
                        await HTTPConnection(channel: connection, router: router, log: log, isShuttingDown: { connections.isQuiescing }).run()
                        connections.untrack(connection.channel)
                    }
                }
            }
        }
    }

    /// Stops accepting and lets open connections close after their in-flight request. Safe from any thread.
    func beginShutdown() {
        serverChannel.channel.close(promise: nil)
        connections.quiesceAll()
    }
}
