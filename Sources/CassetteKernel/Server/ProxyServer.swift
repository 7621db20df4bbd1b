import Foundation
import NIOCore
import NIOExtras
import NIOHTTP1
import NIOPosix
import Synchronization
import WellPlateCore

/// The kernel's server: listeners on one event-loop group, each connection set up by its
/// listener's `ConnectionPipeline`, graceful shutdown that lets in-flight requests finish.
package final class ProxyServer: Sendable {
    private let group: MultiThreadedEventLoopGroup
    /// Whether `shutdown()` stops the event loops too; a session's listener runs on the main
    /// server's loops and leaves them running.
    private let ownsGroup: Bool
    /// Released before the event loops stop: its deinit touches a promise of theirs.
    private let quiescing: Mutex<ServerQuiescingHelper?>
    /// `http://HOST:PORT` of each listener with the port actually bound, in the order asked.
    package let addresses: [String]
    /// The ports bound, in the same order.
    package let ports: [Int]

    /// `http://HOST:PORT` of the first (for a single-host proxy, the only) listener.
    package var address: String { addresses[0] }

    /// One listening socket, and how its connections are set up.
    package struct Listener: Sendable {
        package let pipeline: any ConnectionPipeline
        package let host: String
        package let port: Int

        package init(pipeline: any ConnectionPipeline, host: String, port: Int) {
            self.pipeline = pipeline
            self.host = host
            self.port = port
        }
    }

    private init(group: MultiThreadedEventLoopGroup, ownsGroup: Bool, quiescing: ServerQuiescingHelper, addresses: [String], ports: [Int]) {
        self.group = group
        self.ownsGroup = ownsGroup
        self.quiescing = Mutex(quiescing)
        self.addresses = addresses
        self.ports = ports
    }

    /// Listens on `host`:`port` (0: a free one) with `threads` event loops; every connection is
    /// set up by `pipeline`.
    package static func start(pipeline: any ConnectionPipeline, host: String, port: Int, threads: Int) async throws -> ProxyServer {
        try await start(listeners: [Listener(pipeline: pipeline, host: host, port: port)], threads: threads)
    }

    /// Listens on every listener's address, all served by the same `threads` event loops (a
    /// multi-host proxy: one listener per upstream, one store, one process). A listener that
    /// cannot bind stops them all.
    package static func start(listeners: [Listener], threads: Int) async throws -> ProxyServer {
        try await start(listeners: listeners, group: MultiThreadedEventLoopGroup(numberOfThreads: max(1, threads)), ownsGroup: true)
    }

    /// Listens on `host`:`port` (0: a free one) on `group`'s event loops, which stay running when
    /// it stops or fails to start: a session's listener runs on the main server's loops.
    package static func start(
        pipeline: any ConnectionPipeline, host: String, port: Int, group: MultiThreadedEventLoopGroup, ownsGroup: Bool
    ) async throws -> ProxyServer {
        try await start(listeners: [Listener(pipeline: pipeline, host: host, port: port)], group: group, ownsGroup: ownsGroup)
    }

    /// Every listener on `group`'s loops. With `ownsGroup` the loops stop when the server does
    /// (or fails to start); otherwise they are left to their owner.
    package static func start(listeners: [Listener], group: MultiThreadedEventLoopGroup, ownsGroup: Bool) async throws -> ProxyServer {
        do {
            return try await bindAll(listeners, group: group, ownsGroup: ownsGroup)
        } catch let failure as ListenerFailure where !ownsGroup {
            throw BindFailure(message: BindFailure.describe(failure.error, host: failure.host, port: failure.port))
        } catch let failure as ListenerFailure {
            // The quiescing helper's deinit completes a promise on these loops, so it must be gone
            // before they stop: `bindAll` has returned, and one task on every loop waits out the
            // loop threads' last references to it (held by the bind attempts' tasks).
            for loop in group.makeIterator() {
                try? await loop.submit {}.get()
            }
            try? await group.shutdownGracefully()
            throw BindFailure(message: BindFailure.describe(failure.error, host: failure.host, port: failure.port))
        }
    }

    private struct ListenerFailure: Error {
        package let error: any Error
        package let host: String
        package let port: Int
    }

    /// Binds every listener, or closes those already bound and throws; the quiescing helper lives
    /// in this scope only, unless a server is returned.
    private static func bindAll(_ listeners: [Listener], group: MultiThreadedEventLoopGroup, ownsGroup: Bool) async throws -> ProxyServer {
        let quiescing = ServerQuiescingHelper(group: group)
        var channels: [any Channel] = []
        for listener in listeners {
            do {
                channels.append(try await bind(pipeline: listener.pipeline, host: listener.host, port: listener.port, group: group, quiescing: quiescing))
            } catch {
                for channel in channels { try? await channel.close() }
                throw ListenerFailure(error: error, host: listener.host, port: listener.port)
            }
        }
        let ports = zip(channels, listeners).map { channel, listener in channel.localAddress?.port ?? listener.port }
        let addresses = zip(ports, listeners).map { port, listener in
            "http://\(listener.host.contains(":") ? "[\(listener.host)]" : listener.host):\(port)"
        }
        return ProxyServer(group: group, ownsGroup: ownsGroup, quiescing: quiescing, addresses: addresses, ports: ports)
    }

    private static func bind(
        pipeline: any ConnectionPipeline, host: String, port: Int, group: MultiThreadedEventLoopGroup, quiescing: ServerQuiescingHelper
    ) async throws -> any Channel {
        // What each event loop's connections of this listener share: their request-log buffer
        // (buffer 0 is for lines logged off the loops; loop n writes to n + 1) and what the
        // listener's modules keep per loop (`LoopStorage`).
        let perLoop = Dictionary(
            uniqueKeysWithValues: group.makeIterator().enumerated().map { number, loop in
                (ObjectIdentifier(loop), ConnectionLoop(logShard: number + 1, storage: LoopStorage(on: loop)))
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
                    let loop = perLoop[ObjectIdentifier(channel.eventLoop)] ?? ConnectionLoop(logShard: 0, storage: LoopStorage(on: channel.eventLoop))
                    try pipeline.configure(channel.pipeline.syncOperations, loop: loop)
                }
            }
        return try await bootstrap.bind(host: host, port: port).get()
    }

    /// Stops accepting, lets every in-flight request finish, then `drained` (what the modules
    /// keep open on the event loops, such as upstream connections, closes), then stops the loops.
    package func shutdown(drained: () async -> Void = {}) async {
        if let helper = quiescing.withLock({ $0.take() }) {
            let done = group.next().makePromise(of: Void.self)
            helper.initiateShutdown(promise: done)
            try? await done.futureResult.get()
        }
        await drained()
        if ownsGroup { try? await group.shutdownGracefully() }
    }

    /// The first listener's port (a session's only one).
    package var port: Int { ports[0] }
}

/// How a listener sets up each of its connections (a module's: serving a cassette, the forward
/// proxy, the UI of `cassette ui`).
package protocol ConnectionPipeline: Sendable {
    func configure(_ pipeline: ChannelPipeline.SynchronousOperations, loop: ConnectionLoop) throws
}

/// A listener that could not bind, in words a user can act on.
package struct BindFailure: Error, CustomStringConvertible {
    package let message: String

    package var description: String { message }

    package static func describe(_ error: any Error, host: String, port: Int) -> String {
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
