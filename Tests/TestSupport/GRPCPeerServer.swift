import Foundation
import WellPlateCore

/// The grpcio server of Tests/Peers/grpc_peer.py run so a test can count the upstream
/// connections a recorder opens, stop it gracefully or kill it, and start another on the same
/// port: it logs each call with the client's address and port (`context.peer()`, grpcio's name
/// for the call's TCP connection), so the connections are counted by the real server.
package struct GRPCPeerServer: Sendable {
    package let url: URL
    package let process: ChildProcess

    /// Runs the server for `body` and always stops it; `port` 0 picks a free one; `maxStreams`
    /// is the SETTINGS_MAX_CONCURRENT_STREAMS it announces; with `tls` (PEM certificate chain and
    /// key), h2 over TLS at an `https://` URL.
    package static func with<Result>(
        port: Int = 0, maxStreams: Int? = nil, tls: (certificate: String, key: String)? = nil, _ body: (GRPCPeerServer) async throws -> Result
    ) async throws -> Result {
        try await GRPCPeers.ensureInstalled()
        let arguments =
            ["python3", "-u", GRPCPeers.script, "server", "--log-peers", "--port", "\(port)"] + (maxStreams.map { ["--max-streams", "\($0)"] } ?? [])
            + (tls.map { ["--tls", $0.certificate, $0.key] } ?? [])
        return try await withChildProcess("/usr/bin/env", arguments: arguments) { process in
            try await body(GRPCPeerServer(url: try await process.listeningURL(), process: process))
        }
    }

    /// The calls it served so far: method and the client's address (`ipv4:127.0.0.1:PORT`).
    package var calls: [(method: String, peer: String)] {
        process.standardOutput.split(separator: "\n").compactMap { line in
            guard let value = try? JSONValue(parsing: String(line)), let method = value["call"]?.stringValue, let peer = value["peer"]?.stringValue else {
                return nil
            }
            return (method, peer)
        }
    }

    /// Waits until it has logged `count` calls (its output is read by a thread of its own, and
    /// may lag behind the answers the client got); a deadline for a hang only.
    package func waitForCalls(_ count: Int) async throws {
        try await process.waitForOutput("\(count) calls logged") { output in
            output.split(separator: "\n").count { $0.hasPrefix(#"{"call": "#) } >= count
        }
    }

    /// How many TCP connections its calls came on.
    package var connections: Int { Set(calls.map(\.peer)).count }

    /// SIGTERM: grpcio's `server.stop(grace=30)`, a GOAWAY; the calls in flight finish. Waits for its exit.
    package func stopGracefully() async throws -> ExitStatus {
        process.send(signal: SIGTERM)
        return try await process.waitForExit()
    }
}
