import Foundation

/// The real Socket.IO peers of the proxy's tests, installed from PyPI on first use: the
/// `python-socketio` server (ASGI under uvicorn) and client (`socketio.Client` over the
/// WebSocket transport, on websocket-client), both in `Tests/Peers/socketio_peers.py`.
package enum SocketIOPeers {
    static var script: String { ExternalTool.packageRoot.appendingPathComponent("Tests/Peers/socketio_peers.py").path }

    /// Installs python-socketio, uvicorn and websocket-client from PyPI when they are missing.
    package static func ensureInstalled() async throws {
        let install = try await ExternalTool.run(
            [
                "bash", ExternalTool.packageRoot.appendingPathComponent("scripts/ensure-pip-module.sh").path, "socketio", "python-socketio", "uvicorn",
                "websocket-client",
            ],
            cwd: ExternalTool.packageRoot)
        guard install.status == 0 else { throw ChildProcessError("could not install python-socketio: \(install.stderr)") }
    }

    /// Runs the server for `body` (its `http://127.0.0.1:PORT` base) and always stops it.
    package static func withServer<Result>(_ body: (_ base: URL) async throws -> Result) async throws -> Result {
        try await ensureInstalled()
        return try await withChildProcess("/usr/bin/env", arguments: ["python3", "-u", script, "server"]) { process in
            try await body(process.listeningURL())
        }
    }

    /// What the client printed talking to `url` (`http://127.0.0.1:PORT`): one JSON line per
    /// acknowledgement or event, then `{"ids": [...]}`, the acknowledgement ids it sent.
    /// `ackStart`: its counters start there (`/`) and 50 above (`/chat`) instead of 1.
    package static func client(_ url: String, ackStart: Int? = nil) async throws -> [String] {
        try await ensureInstalled()
        let result = try await ExternalTool.run(["python3", script, "client", url] + (ackStart.map { [String($0)] } ?? []), cwd: ExternalTool.packageRoot)
        guard result.status == 0 else { throw ChildProcessError("the Socket.IO client failed: \(result.stderr)") }
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// What the client printed emitting add(1, 2) (`a`), add(2, 10) (`b`) and /chat echo (`c`)
    /// in `order` at once: the answers by name, then `{"ids": [...]}`, the ids in `order`.
    package static func concurrentClient(_ url: String, order: String, ackStart: Int? = nil) async throws -> [String] {
        try await ensureInstalled()
        let result = try await ExternalTool.run(
            ["python3", script, "concurrent", url, order] + (ackStart.map { [String($0)] } ?? []), cwd: ExternalTool.packageRoot)
        guard result.status == 0 else { throw ChildProcessError("the Socket.IO client failed: \(result.stderr)") }
        return result.stdout.split(separator: "\n").map(String.init)
    }
}
