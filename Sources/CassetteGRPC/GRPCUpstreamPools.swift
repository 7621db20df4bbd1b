import Foundation
import Synchronization
import WellPlateCore

/// The proxy's pools of upstream connections, one per upstream (scheme, host, port and TLS
/// settings), shared by every listener and session that records from it; owned by the gRPC
/// module of the running proxy and shut down with it, after its listeners drained.
final class GRPCUpstreamPools: Sendable {
    private let pools = Mutex<[GRPCUpstreamPool]>([])

    /// The pool for `upstream` under `tls`, made at its first use.
    func pool(for upstream: URL, tls: WellPlateCore.TLSConfiguration) -> GRPCUpstreamPool {
        let connection = GRPCUpstreamConnection(upstream: upstream, tls: tls)
        let origin = Self.origin(connection)
        return pools.withLock { pools in
            if let pool = pools.first(where: { Self.origin($0.upstream) == origin && $0.upstream.tlsSettings == tls }) { return pool }
            let pool = GRPCUpstreamPool(upstream: connection)
            pools.append(pool)
            return pool
        }
    }

    func shutdown() async {
        for pool in pools.withLock({ $0 }) { await pool.shutdown() }
    }

    private static func origin(_ connection: GRPCUpstreamConnection) -> String {
        "\(connection.scheme)://\(connection.host.lowercased()):\(connection.port)"
    }
}
