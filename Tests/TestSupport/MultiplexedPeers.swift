import Foundation

/// The real peers that run several operations on one WebSocket, in `Tests/Peers/multiplexed_peers.py`,
/// installed from PyPI on first use: a strawberry-graphql server (ASGI under uvicorn) with the
/// `gql` client (its websockets transport), and a JSON-RPC 2.0 server and client on `websockets`.
package enum MultiplexedPeers {
    static var script: String { ExternalTool.packageRoot.appendingPathComponent("Tests/Peers/multiplexed_peers.py").path }

    /// Installs strawberry-graphql, uvicorn, gql (with its websockets transport) and websockets when
    /// missing: once per test process (each check starts Python four times).
    package static func ensureInstalled() async throws {
        try await installation.value
    }

    private static let installation = Task { try await install() }

    private static func install() async throws {
        let ensure = ExternalTool.packageRoot.appendingPathComponent("scripts/ensure-pip-module.sh").path
        for (module, packages) in [
            ("strawberry", ["strawberry-graphql"]), ("uvicorn", ["uvicorn"]), ("gql.transport.websockets", ["gql[websockets]"]), ("websockets", ["websockets"]),
        ] {
            let result = try await ExternalTool.run(["bash", ensure, module] + packages, cwd: ExternalTool.packageRoot)
            guard result.status == 0 else { throw ChildProcessError("could not install \(packages): \(result.stderr)") }
        }
    }

    /// Runs `multiplexed_peers.py SERVER` (`graphql-server` or `jsonrpc-server`) for `body`
    /// (its `http://127.0.0.1:PORT` base) and always stops it; `arguments` follow the server's name
    /// (`--drift`: the GraphQL server's Countdown sends `null` for 1).
    package static func withServer<Result>(_ server: String, arguments: [String] = [], _ body: (_ base: URL) async throws -> Result) async throws -> Result {
        try await ensureInstalled()
        return try await withChildProcess("/usr/bin/env", arguments: ["python3", "-u", script, server] + arguments) { process in
            try await body(process.listeningURL())
        }
    }

    /// The lines a client mode (`graphql-client`, `jsonrpc-client`) printed with `arguments`.
    package static func client(_ mode: String, _ arguments: [String]) async throws -> [String] {
        try await ensureInstalled()
        let result = try await ExternalTool.run(["python3", script, mode] + arguments, cwd: ExternalTool.packageRoot)
        guard result.status == 0 else { throw ChildProcessError("multiplexed_peers.py \(mode) failed (\(result.status)): \(result.stderr)") }
        return result.stdout.split(separator: "\n").map(String.init)
    }
}
