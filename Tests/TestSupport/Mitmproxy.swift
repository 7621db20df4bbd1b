import Foundation
import WellPlateCore
import WellPlateNetworking

#if canImport(Glibc)
import Glibc
#endif

/// mitmproxy's `mitmdump` (PyPI), the third-party tool whose HAR files the HAR tests read and
/// which reads the HAR files `cassette export --har` writes.
package enum Mitmproxy {
    /// The path of `mitmdump`, installed with pip first when it is missing (scripts/ensure-deps.sh
    /// does the same for CI). Computed once per test run.
    package static func mitmdump() async throws -> String {
        if let path = find("mitmdump") { return path }
        try await ExternalTool.ensure("mitmdump", package: "mitmproxy")
        guard let path = find("mitmdump") ?? find("mitmdump", in: [NSHomeDirectory() + "/.local/bin"]) else {
            throw ChildProcessError("mitmdump is missing and `pip install mitmproxy` did not provide it; run scripts/ensure-test-peers.sh")
        }
        return path
    }

    private static func find(_ name: String, in extra: [String] = []) -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init) + extra
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// A loopback port free right now: mitmdump takes a fixed listen port, so one is picked by
    /// binding port 0 and releasing it.
    package static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(fd) }
        return try Ports.bindLoopback(fd)
    }

    /// Runs `mitmdump ARGUMENTS` to completion (e.g. `-nr FILE` reading a HAR) and returns its
    /// exit status and output.
    package static func run(_ arguments: [String], directory: String) async throws -> (status: ExitStatus, output: String) {
        try await withChildProcess(try await mitmdump(), arguments: arguments + ["--set", "confdir=\(directory)/mitmproxy-conf"]) { process in
            let status = try await process.waitForExit(timeout: .seconds(120))
            return (status, process.standardOutput + process.standardError)
        }
    }
}

/// Starts `mitmdump` as a reverse proxy in front of `upstream`, saving every flow to `harFile`
/// when it stops; `body` gets the proxy's port. mitmdump is stopped with SIGINT (which writes the
/// HAR) before this returns, also when `body` throws.
package func withMitmdumpReverseProxy<Result>(
    to upstream: URL, harFile: String, directory: String, _ body: (_ port: Int) async throws -> Result
) async throws -> Result {
    let port = try Mitmproxy.freePort()
    let arguments = [
        "--mode", "reverse:\(upstream.absoluteString)", "--listen-host", "127.0.0.1", "--listen-port", String(port),
        "--set", "hardump=\(harFile)", "--set", "confdir=\(directory)/mitmproxy-conf",
    ]
    return try await withChildProcess(try await Mitmproxy.mitmdump(), arguments: arguments, gracePeriod: .seconds(20)) { process in
        // mitmdump takes seconds to start on a busy machine; ready once it accepts connections.
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(90)
        while true {
            if (try? await RawConnection.connect(port: port, timeout: .seconds(1))) != nil { break }
            guard clock.now < deadline, process.exitStatus == nil else {
                throw ChildProcessError("mitmdump did not start listening on \(port): \(process.standardOutput) \(process.standardError)")
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        let result = try await body(port)
        process.send(signal: SIGINT)
        let status = try await process.waitForExit(timeout: .seconds(60))
        guard status == .exited(0) else {
            throw ChildProcessError("mitmdump \(status) while saving \(harFile): \(process.standardError)")
        }
        return result
    }
}
