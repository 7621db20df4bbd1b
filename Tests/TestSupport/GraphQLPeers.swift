import Foundation
import WellPlateCore
import WellPlateNetworking

/// The real GraphQL peers of the tests, Python scripts in Tests/Peers: an upstream (ariadne's
/// executor served by uvicorn, with automatic persisted queries as Apollo servers answer them) and
/// the clients (the PyPI `gql` client and requests shaped as Apollo iOS sends them). Their packages
/// are installed from PyPI when missing (scripts/ensure-pip-module.sh).
package enum GraphQLPeers {
    static let peers = ExternalTool.packageRoot.appendingPathComponent("Tests/Peers")

    /// Installs ariadne, uvicorn and gql (with its requests transport) when python3 lacks them.
    package static func ensureInstalled() async throws {
        let script = ExternalTool.packageRoot.appendingPathComponent("scripts/ensure-pip-module.sh").path
        for (module, packages) in [("ariadne", ["ariadne"]), ("uvicorn", ["uvicorn"]), ("gql.transport.requests", ["gql[requests]"])] {
            let result = try await ExternalTool.run(["bash", script, module] + packages, cwd: ExternalTool.packageRoot)
            guard result.status == 0 else { throw ChildProcessError("could not install \(packages): \(result.stderr)") }
        }
    }

    /// Runs the GraphQL upstream for `body` and always stops it; with `drifted`, users' emails
    /// are null (an API change only GetUser sees).
    package static func withUpstream<Result>(drifted: Bool = false, _ body: (_ baseURL: URL) async throws -> Result) async throws -> Result {
        try await ensureInstalled()
        let script = peers.appendingPathComponent("graphql_upstream.py").path
        return try await withChildProcess("/usr/bin/env", arguments: ["python3", "-u", script] + (drifted ? ["--drift"] : [])) { process in
            try await body(try await process.listeningURL())
        }
    }

    /// One request a client script made: its step name, status, `X-Cassette` header and body.
    package struct Step: Sendable {
        package let name: String
        package let status: Int
        package let cassette: String?
        package let body: JSONValue
        /// The line as the script printed it.
        package let line: String
    }

    /// Runs `graphql_clients.py MODE URL` to completion; its steps by name, in order.
    package static func runClients(_ mode: String, against url: URL) async throws -> [Step] {
        try await ensureInstalled()
        let script = peers.appendingPathComponent("graphql_clients.py").path
        let result = try await ExternalTool.run(["python3", script, mode, url.absoluteString], cwd: ExternalTool.packageRoot)
        guard result.status == 0 else {
            throw ChildProcessError("graphql_clients.py \(mode) failed (\(result.status)): \(result.stderr)")
        }
        return try result.stdout.split(separator: "\n").map { line in
            let value = try JSONValue(parsing: String(line))
            return Step(
                name: value["step"]?.stringValue ?? "", status: Int(value["status"]?.doubleValue ?? 0),
                cassette: value["cassette"]?.stringValue, body: value["body"] ?? .null, line: String(line))
        }
    }
}
