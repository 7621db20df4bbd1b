import Foundation

/// Tests/Peers/grpc_reset_upstream.py: PyPI's `h2` (hyper-h2) serving shop.v1.Catalog over h2c,
/// resetting a ListItems stream with RST_STREAM after two messages or before its HEADERS while
/// the connection and its other calls go on, which grpcio's server cannot be made to do. `h2`
/// (and grpcio-tools, for the messages) are installed from PyPI when missing.
package enum GRPCResetUpstream {
    /// Runs the upstream for `body` and always stops it; `events()` gives the lines it printed
    /// so far after its address (`answered GetItem b2 on stream 3`, `reset ListItems on stream 1
    /// with INTERNAL_ERROR after 2 messages`).
    /// `bind`: listens on that address (`::1`) instead of 127.0.0.1.
    package static func with<Result>(
        bind: String? = nil, _ body: (_ url: URL, _ events: @Sendable () -> [String]) async throws -> Result
    )
        async throws -> Result
    {
        try await GRPCPeers.ensureInstalled()
        let installer = ExternalTool.packageRoot.appendingPathComponent("scripts/ensure-pip-module.sh").path
        let installed = try await ExternalTool.run(["bash", installer, "h2", "h2"], cwd: ExternalTool.packageRoot)
        guard installed.status == 0 else { throw ChildProcessError("could not install h2: \(installed.stderr)") }
        let script = ExternalTool.packageRoot.appendingPathComponent("Tests/Peers/grpc_reset_upstream.py").path
        let arguments = ["python3", "-u", script] + (bind.map { ["--bind", $0] } ?? [])
        return try await withChildProcess("/usr/bin/env", arguments: arguments) { process in
            let url = try await process.listeningURL()
            return try await body(url) { process.standardOutput.split(separator: "\n").dropFirst().map(String.init) }
        }
    }
}
