// The proxy tests' client is libcurl's (`ProxyClient`), so they exist only where it does.
#if canImport(CCurl)
import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

#if canImport(Glibc)
import Glibc
#endif

/// A proxy a test talks to over loopback, in a child process (`ProxyProcess`) or in the test's
/// own process: its port, and requests to it.
package protocol RunningProxy: Sendable {
    var port: Int { get }
}

extension RunningProxy {
    /// The proxy's URL for `pathAndQuery`, over loopback also when it listens on 0.0.0.0.
    package func url(_ pathAndQuery: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(pathAndQuery)")!
    }

    package func get(_ pathAndQuery: String, headers: HTTPFields = [:]) async throws -> TransportResponse {
        try await send(.get, pathAndQuery, headers: headers)
    }

    package func send(_ method: HTTPMethod, _ pathAndQuery: String, headers: HTTPFields = [:], body: Data? = nil) async throws -> TransportResponse {
        try await ProxyClient.send(method, url(pathAndQuery), headers: headers, body: body)
    }

    /// A request with a JSON body and `Content-Type: application/json`.
    package func send(_ method: HTTPMethod, _ pathAndQuery: String, json: String) async throws -> TransportResponse {
        try await send(method, pathAndQuery, headers: [.contentType: "application/json"], body: Data(json.utf8))
    }

    /// A fresh raw TCP connection to the proxy.
    package func connect() async throws -> RawConnection {
        try await RawConnection.connect(port: port)
    }
}

/// A running `cassette record` or `cassette replay` and the address from its `listening on` line.
package struct ProxyProcess: RunningProxy {
    package init(process: ChildProcess, url: URL) {
        self.process = process
        self.url = url
    }

    package let process: ChildProcess
    /// As printed: `http://HOST:PORT`.
    package let url: URL

    package var port: Int { url.port ?? 0 }

    /// SIGTERM, then the exit status; stdout and stderr are complete when this returns.
    package func stop() async throws -> ExitStatus {
        process.send(signal: SIGTERM)
        return try await process.waitForExit(timeout: Patience.process)
    }

    /// stdout line by line (all of it once `stop()` returned).
    package var outputLines: [String] {
        process.standardOutput.split(separator: "\n").map(String.init)
    }

    /// The `recorded N, replayed N, missed N, ...` line printed on shutdown.
    package var summaryLine: String? {
        outputLines.last { $0.hasPrefix("recorded ") }
    }

    /// Waits until the proxy has logged a line containing `fragment` (lines are written after the
    /// response, from a background queue).
    package func waitForLogLine(containing fragment: String) async throws {
        try await process.waitForOutput("a line containing \"\(fragment)\"") { $0.contains(fragment) }
    }
}

/// Runs `cassette ARGUMENTS` (a command that starts the proxy), waits for `listening on`, runs
/// `body` and always stops the proxy afterwards. `NO_COLOR=1` unless `environment` says otherwise.
/// With `workingDirectory` the tool starts there (through `sh -c 'cd DIR && exec cassette ...'`,
/// so signals still reach the tool itself).
package func withProxy<Result>(
    _ arguments: [String],
    workingDirectory: String? = nil,
    environment: [String: String] = [:],
    standardOutputOnTerminal: Bool = false,
    _ body: (ProxyProcess) async throws -> Result
) async throws -> Result {
    var variables = ["NO_COLOR": "1"]
    variables.merge(environment) { _, new in new }
    var executable = "cassette"
    var commandLine = arguments
    if let workingDirectory {
        executable = "/bin/sh"
        commandLine = ["-c", #"cd "$0" && exec "$@""#, workingDirectory, try BuiltProducts.executable(named: "cassette")] + arguments
    }
    return try await ProxySlots.shared.withSlot {
        try await runProxy(executable, commandLine, variables, standardOutputOnTerminal, arguments, body)
    }
}

private func runProxy<Result>(
    _ executable: String,
    _ commandLine: [String],
    _ variables: [String: String],
    _ standardOutputOnTerminal: Bool,
    _ arguments: [String],
    _ body: (ProxyProcess) async throws -> Result
) async throws -> Result {
    try await withChildProcess(executable, arguments: commandLine, environment: variables, standardOutputOnTerminal: standardOutputOnTerminal) { process in
        let line = try await process.firstLineOfOutput(timeout: Patience.process)
        let prefix = "listening on "
        let address = line.trimmingCharacters(in: .whitespacesAndNewlines)
        guard address.hasPrefix(prefix), let url = URL(string: String(address.dropFirst(prefix.count))), url.port != nil else {
            throw ChildProcessError(
                "expected 'listening on http://HOST:PORT' from cassette \(arguments.joined(separator: " ")), got '\(line)'; stderr: \(process.standardError)")
        }
        return try await body(ProxyProcess(process: process, url: url))
    }
}

/// How many proxies the tests run at once. Dozens of them starting together on a small machine
/// starve every timing-sensitive test (theirs and others') of CPU; two at a time finish as fast.
package actor ProxySlots {
    package static let shared = ProxySlots(count: 2)

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    package init(count: Int) {
        free = count
    }

    package func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Runs `body` holding a slot; a proxy started inside another's body (recording through one,
    /// replaying with another) takes no second slot, so nesting cannot deadlock.
    package nonisolated func withSlot<Result>(_ body: () async throws -> Result) async throws -> Result {
        if Self.held { return try await body() }
        await acquire()
        do {
            let result = try await Self.$held.withValue(true) { try await body() }
            await release()
            return result
        } catch {
            await release()
            throw error
        }
    }

    /// Whether the current task holds a slot already.
    @TaskLocal package static var held = false

    package func release() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}

/// `cassette record --upstream UPSTREAM --port 0 --db STORE ARGUMENTS` around `body`.
package func withRecorder<Result>(
    upstream: URL,
    store: String,
    arguments: [String] = [],
    environment: [String: String] = [:],
    _ body: (ProxyProcess) async throws -> Result
) async throws -> Result {
    try await withProxy(["record", "--upstream", upstream.absoluteString, "--port", "0", "--db", store] + arguments, environment: environment, body)
}

/// `cassette replay --port 0 --db STORE ARGUMENTS` around `body`.
package func withReplayer<Result>(
    store: String,
    arguments: [String] = [],
    environment: [String: String] = [:],
    _ body: (ProxyProcess) async throws -> Result
) async throws -> Result {
    try await withProxy(["replay", "--port", "0", "--db", store] + arguments, environment: environment, body)
}

/// Reading a store the proxy wrote, the way a user would find it on disk.
package enum StoreFiles {
    /// Every recording in the store at `path` (ordered by key, then sequence).
    package static func interactions(at path: String, cassette: String? = nil) async throws -> [Interaction] {
        let store = try await CassetteStore.open(path: path, access: .readOnly)
        let interactions = try await store.interactions(cassette: cassette)
        try await store.close()
        return interactions
    }

    /// The files of the store at `path` (database, `-wal`, `-shm`, `-journal`) whose raw bytes
    /// contain `needle`.
    package static func files(at path: String, containing needle: String) throws -> [String] {
        let pattern = Data(needle.utf8)
        return try ["", "-wal", "-shm", "-journal"].map { path + $0 }.filter { file in
            guard FileManager.default.fileExists(atPath: file) else { return false }
            return try Data(contentsOf: URL(fileURLWithPath: file)).range(of: pattern) != nil
        }
    }
}

/// The sample API's `/api/binary?size=N` body: byte i is i % 256.
package func binaryPattern(size: Int) -> Data {
    Data((0..<size).map { UInt8(truncatingIfNeeded: $0) })
}
#endif
