import Foundation
import WellPlateCore

/// The real gRPC peers of the tests, Tests/Peers/grpc_peer.py over Tests/Peers/grpc/shop.proto:
/// PyPI's `grpcio` as server (all four kinds of call, statuses, metadata, gzip, reflection) and as
/// client, and `grpcio-tools` for the protoset and for messages encoded by protobuf itself. Stubs
/// are generated at run time; the packages are installed from PyPI when missing.
package enum GRPCPeers {
    static let script = ExternalTool.packageRoot.appendingPathComponent("Tests/Peers/grpc_peer.py").path

    /// Installs grpcio, grpcio-tools, grpcio-reflection and h2 (the client that never half-closes)
    /// when python3 lacks them.
    package static func ensureInstalled() async throws {
        let installer = ExternalTool.packageRoot.appendingPathComponent("scripts/ensure-pip-module.sh").path
        let modules = [("grpc_tools", ["grpcio", "grpcio-tools"]), ("grpc_reflection", ["grpcio-reflection"]), ("h2", ["h2"])]
        for (module, packages) in modules {
            let result = try await ExternalTool.run(["bash", installer, module] + packages, cwd: ExternalTool.packageRoot)
            guard result.status == 0 else { throw ChildProcessError("could not install \(packages): \(result.stderr)") }
        }
    }

    /// shop.proto's `FileDescriptorSet` (imports included), as `protoc --descriptor_set_out` writes it.
    package static func protoset(in directory: TemporaryDirectory) async throws -> URL {
        try await ensureInstalled()
        let url = directory.url.appendingPathComponent("shop.protoset")
        let result = try await ExternalTool.run(["python3", script, "protoset", url.path], cwd: directory.url)
        guard result.status == 0 else { throw ChildProcessError("protoset failed (\(result.status)): \(result.stderr)") }
        return url
    }

    /// The bytes protobuf encodes `json` (a `shop.v1` message of `type`) to, and protobuf's own JSON of it.
    package static func encode(_ type: String, json: String) async throws -> (bytes: Data, json: JSONValue) {
        try await ensureInstalled()
        let result = try await ExternalTool.run(["python3", script, "encode", type, json], cwd: FileManager.default.temporaryDirectory)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        guard result.status == 0, lines.count == 2 else { throw ChildProcessError("encode failed (\(result.status)): \(result.stderr)") }
        var bytes = Data()
        var hex = lines[0][...]
        while hex.count >= 2 {
            bytes.append(UInt8(hex.prefix(2), radix: 16) ?? 0)
            hex = hex.dropFirst(2)
        }
        return (bytes, try JSONValue(parsing: String(lines[1])))
    }

    /// Runs the grpcio server for `body` and always stops it; with `drift`, items come without
    /// their labels and thumbnail (drift for `cassette diff`); with `tls` (PEM certificate chain
    /// and key), h2 over TLS at an `https://` URL; with `bind`, on that address (`::1`) instead
    /// of 127.0.0.1.
    package static func withServer<Result>(
        reflection: Bool = false, gzip: Bool = false, drift: Bool = false, tls: (certificate: String, key: String)? = nil, bind: String? = nil,
        _ body: (_ url: URL) async throws -> Result
    ) async throws -> Result {
        try await ensureInstalled()
        var flags: [String] = (reflection ? ["--reflection"] : []) + (gzip ? ["--gzip"] : []) + (drift ? ["--drift"] : [])
        if let tls { flags += ["--tls", tls.certificate, tls.key] }
        if let bind { flags += ["--bind", bind] }
        return try await withChildProcess("/usr/bin/env", arguments: ["python3", "-u", script, "server"] + flags) { process in
            try await body(try await process.listeningURL())
        }
    }

    /// One call the grpcio client made: its step, status code name, and body or error details.
    package struct Call: Sendable {
        package let step: String
        package let code: String
        package let line: JSONValue
    }

    /// The grpcio client's `scenario` as a child process, for a test that acts while its call is
    /// open (`hold` prints a `held` line, then keeps its stream open); always stopped afterwards.
    package static func withClient<Result>(_ scenario: String, against url: URL, _ body: (ChildProcess) async throws -> Result) async throws -> Result {
        try await ensureInstalled()
        let target = "\(url.host ?? "127.0.0.1"):\(url.port ?? 0)"
        return try await withChildProcess("/usr/bin/env", arguments: ["python3", "-u", script, "client", target, scenario], body)
    }

    /// PyPI's h2 as a client that opens a Chat call, sends one message and never half-closes nor
    /// resets its stream (grpcio does one or the other once the answer is complete); its output
    /// is one JSON line per HTTP/2 event (`headers`, `data`, `trailers`, `reset`, `goaway`,
    /// `closed`). Always stopped afterwards.
    package static func withStubbornClient<Result>(against url: URL, _ body: (ChildProcess) async throws -> Result) async throws -> Result {
        try await ensureInstalled()
        let target = "\(url.host ?? "127.0.0.1"):\(url.port ?? 0)"
        return try await withChildProcess("/usr/bin/env", arguments: ["python3", "-u", script, "h2-hold", target], body)
    }

    /// The calls a client's output reports (its lines with a `code`).
    package static func calls(in output: String) throws -> [Call] {
        try output.split(separator: "\n").map { try JSONValue(parsing: String($0)) }.filter { $0["code"] != nil }.map { value in
            Call(step: value["step"]?.stringValue ?? "", code: value["code"]?.stringValue ?? "", line: value)
        }
    }

    /// Runs the grpcio client's `scenario` (steps separated by commas) against `url`'s host and
    /// port; `metadata` goes into every call's request metadata.
    package static func runClient(_ scenario: String, against url: URL, gzip: Bool = false, metadata: [String: String] = [:]) async throws -> [Call] {
        try await ensureInstalled()
        let target = "\(url.host ?? "127.0.0.1"):\(url.port ?? 0)"
        let pairs = metadata.sorted { $0.key < $1.key }.flatMap { ["--metadata", "\($0.key)=\($0.value)"] }
        let result = try await ExternalTool.run(
            ["python3", script, "client", target, scenario] + (gzip ? ["--gzip"] : []) + pairs, cwd: FileManager.default.temporaryDirectory)
        guard result.status == 0 else { throw ChildProcessError("grpc client \(scenario) failed (\(result.status)): \(result.stderr)") }
        return try result.stdout.split(separator: "\n").map { line in
            let value = try JSONValue(parsing: String(line))
            return Call(step: value["step"]?.stringValue ?? "", code: value["code"]?.stringValue ?? "", line: value)
        }
    }
}
