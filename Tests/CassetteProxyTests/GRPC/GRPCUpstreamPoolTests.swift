import Foundation
import NIOCore
import NIOPosix
import TestSupport
import Testing
import WellPlateCore

@testable import CassetteGRPC

/// `GRPCUpstreamPool`'s own life against grpcio's server (Tests/Peers/grpc_peer.py): what no
/// call through a recorder shows, the idle close and the shutdown. A stream taken and closed at
/// once stands for a call that ended.
@Suite("GRPCUpstreamPool closes idle connections and shuts down with the proxy")
struct GRPCUpstreamPoolTests {
    private let loop = MultiThreadedEventLoopGroup.singleton.next()

    private func pool(_ upstream: URL, idle: TimeAmount) -> GRPCUpstreamPool {
        GRPCUpstreamPool(upstream: GRPCUpstreamConnection(upstream: upstream, tls: TLSConfiguration()), idleTimeout: idle)
    }

    /// A stream from `pool` (its connection returned), optionally closed at once.
    private func stream(from pool: GRPCUpstreamPool, close: Bool) async throws -> (stream: any Channel, connection: any Channel) {
        let stream = try await pool.stream(on: loop) { $0.eventLoop.makeSucceededVoidFuture() }.get()
        let connection = try #require(stream.parent)
        if close { try await stream.close() }
        return (stream, connection)
    }

    @Test("a connection without calls for the idle time is closed; the next call opens another")
    func idleConnectionCloses() async throws {
        try await GRPCPeerServer.with { server in
            let pool = pool(server.url, idle: .milliseconds(200))
            let first = try await stream(from: pool, close: true).connection
            // A deadline for a hang only: the close is awaited, not timed.
            try await withTimeout(.seconds(30), "the idle connection's close") { try await first.closeFuture.get() }
            // Kept open: a closed one's connection would be idle again, and closed, 200 ms later,
            // before a busy machine gets to the checks.
            let (call, second) = try await stream(from: pool, close: false)
            #expect(second !== first)
            #expect(second.isActive)
            try await call.close()
            await pool.shutdown()
            #expect(!second.isActive)
        }
    }

    @Test("a connection with a call on it is not idle; shutdown closes it, and later calls are refused")
    func shutdownClosesConnections() async throws {
        try await GRPCPeerServer.with { server in
            let pool = pool(server.url, idle: .milliseconds(100))
            let (open, connection) = try await stream(from: pool, close: false)
            let (_, shared) = try await stream(from: pool, close: true)
            #expect(shared === connection)
            try await Task.sleep(for: .milliseconds(500))
            #expect(connection.isActive && open.isActive)
            await pool.shutdown()
            #expect(!connection.isActive)
            #expect(pool.connectionCount == 0)
            await #expect(throws: GRPCUpstreamPoolError.self) { try await stream(from: pool, close: true) }
        }
    }
}
