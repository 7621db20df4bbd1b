import CassetteTools
import Foundation
import NIOCore
import NIOExtras
import NIOHTTP1
import NIOPosix
import Synchronization
import WellPlateCore
import WellPlateNetworking

/// The record/replay reverse proxy: SwiftNIO HTTP/1.1 with keep-alive and pipelining, one
/// `ProxyHandler` per connection, graceful shutdown that lets in-flight requests finish.
final class ProxyServer: Sendable {
    private let group: MultiThreadedEventLoopGroup
    /// Whether `shutdown()` stops the event loops too; a session's listener runs on the main
    /// server's loops and leaves them running.
    private let ownsGroup: Bool
    /// Released before the event loops stop: its deinit touches a promise of theirs.
    private let quiescing: Mutex<ServerQuiescingHelper?>
    private let channel: any Channel
    /// `http://HOST:PORT` with the port actually bound.
    let address: String

    private init(group: MultiThreadedEventLoopGroup, ownsGroup: Bool, quiescing: ServerQuiescingHelper, channel: any Channel, address: String) {
        self.group = group
        self.ownsGroup = ownsGroup
        self.quiescing = Mutex(quiescing)
        self.channel = channel
        self.address = address
    }

    /// Listens on `host`:`port` (0: a free one) on `group`'s event loops; every connection is
    /// set up by `pipeline`. With `ownsGroup` the loops stop when the server does (or fails to
    /// start), else they are left to their owner (a session's listener runs on the main server's).
    static func start(pipeline: ProxyPipeline, host: String, port: Int, group: MultiThreadedEventLoopGroup, ownsGroup: Bool) async throws -> ProxyServer {
        do {
            return try await bind(pipeline: pipeline, host: host, port: port, group: group, ownsGroup: ownsGroup)
        } catch  where !ownsGroup {
            throw CLIError(BindFailure.describe(error, host: host, port: port))
        } catch {
            // The quiescing helper's deinit completes a promise on these loops, so it must be gone
            // before they stop: `bind` has returned, and one task on every loop waits out the loop
            // threads' last references to it (held by the bind attempt's tasks).
            for loop in group.makeIterator() {
                try? await loop.submit {}.get()
            }
            try? await group.shutdownGracefully()
            throw CLIError(BindFailure.describe(error, host: host, port: port))
        }
    }

    private static func bind(pipeline: ProxyPipeline, host: String, port: Int, group: MultiThreadedEventLoopGroup, ownsGroup: Bool) async throws -> ProxyServer
    {
        let quiescing = ServerQuiescingHelper(group: group)
        // What each event loop's connections share: their request-log buffer (buffer 0 is for
        // lines logged off the loops; loop n writes to n + 1) and their replay keys.
        let perLoop = Dictionary(
            uniqueKeysWithValues: group.makeIterator().enumerated().map { number, loop in
                (ObjectIdentifier(loop), (logShard: number + 1, targetCache: NIOLoopBoundBox.makeBoxSendingValue(ReplayTargetCache(), eventLoop: loop)))
            })
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(quiescing.makeServerChannelHandler(channel: channel))
                }
            }
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let shared = perLoop[ObjectIdentifier(channel.eventLoop)]
                    let targetCache = shared?.targetCache ?? .makeBoxSendingValue(ReplayTargetCache(), eventLoop: channel.eventLoop)
                    try pipeline.configure(channel.pipeline.syncOperations, logShard: shared?.logShard ?? 0, targetCache: targetCache)
                }
            }
        let channel = try await bootstrap.bind(host: host, port: port).get()
        let boundPort = channel.localAddress?.port ?? port
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return ProxyServer(group: group, ownsGroup: ownsGroup, quiescing: quiescing, channel: channel, address: "http://\(shownHost):\(boundPort)")
    }

    /// Stops accepting, lets every in-flight request finish, then stops the event loops.
    func shutdown() async {
        if let helper = quiescing.withLock({ $0.take() }) {
            let done = group.next().makePromise(of: Void.self)
            helper.initiateShutdown(promise: done)
            try? await done.futureResult.get()
        }
        if ownsGroup { try? await group.shutdownGracefully() }
    }

    /// The port actually bound.
    var port: Int {
        channel.localAddress?.port ?? 0
    }
}

/// Bind failures in words a user can act on.
enum BindFailure {
    static func describe(_ error: any Error, host: String, port: Int) -> String {
        if let io = error as? IOError {
            switch io.errnoCode {
            case EADDRINUSE:
                return "cannot listen on \(host):\(port): the port is already in use; pick another --port (0 picks a free one)"
            case EACCES:
                return "cannot listen on \(host):\(port): permission denied; use a port above 1023"
            case EADDRNOTAVAIL:
                return "cannot listen on \(host):\(port): this machine has no such address; use --host 127.0.0.1"
            default:
                return "cannot listen on \(host):\(port): \(String(cString: strerror(io.errnoCode)))"
            }
        }
        if error is SocketAddressError {
            return "cannot listen on \(host):\(port): '\(host)' is not an IP address; pass one such as 127.0.0.1 with --host"
        }
        return "cannot listen on \(host):\(port): \(error)"
    }
}
