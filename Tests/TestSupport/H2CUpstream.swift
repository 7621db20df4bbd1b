import Foundation

/// Tests/Peers/h2c_upstream.py: PyPI's hypercorn speaking HTTP/1.1 and HTTP/2 with prior
/// knowledge (h2c) on one port, answering each request with the HTTP version it arrived in
/// (`{"httpVersion": "2", ...}`) and printing one line per request (`HTTP/2 POST /path`).
/// hypercorn is installed from PyPI when missing.
package enum H2CUpstream {
    /// Runs the upstream for `body` and always stops it; `requests()` gives the lines it printed so far.
    package static func with<Result>(_ body: (_ url: URL, _ requests: @Sendable () -> [String]) async throws -> Result) async throws -> Result {
        let installer = ExternalTool.packageRoot.appendingPathComponent("scripts/ensure-pip-module.sh").path
        let installed = try await ExternalTool.run(["bash", installer, "hypercorn", "hypercorn"], cwd: ExternalTool.packageRoot)
        guard installed.status == 0 else { throw ChildProcessError("could not install hypercorn: \(installed.stderr)") }
        let script = ExternalTool.packageRoot.appendingPathComponent("Tests/Peers/h2c_upstream.py").path
        return try await withChildProcess("/usr/bin/env", arguments: ["python3", "-u", script]) { process in
            let url = try await process.listeningURL()
            return try await body(url) { process.standardOutput.split(separator: "\n").dropFirst().map(String.init) }
        }
    }
}
