import Foundation
import WellPlateCore
import WellPlateNetworking

extension ChildProcess {
    /// Waits for the `listening on http://HOST:PORT` line and returns that URL.
    package func listeningURL(timeout: Duration = Patience.process) async throws -> URL {
        let line = try await firstLineOfOutput(timeout: timeout)
        let prefix = "listening on "
        guard line.hasPrefix(prefix), let url = URL(string: String(line.dropFirst(prefix.count))), url.port != nil else {
            throw ChildProcessError("expected '\(prefix)http://HOST:PORT' from \(executable), got '\(line)'; stderr: \(standardError)")
        }
        return url
    }
}

/// Runs `body` against a fresh sample API on a free port; the server is stopped afterwards.
/// Every call gets its own process, so state (created users, flaky counters) never leaks between tests.
package func withSampleAPI<Result>(
    arguments: [String] = [],
    _ body: (_ baseURL: URL) async throws -> Result
) async throws -> Result {
    try await withSampleAPIProcess(arguments: arguments) { baseURL, _ in try await body(baseURL) }
}

/// Like `withSampleAPI`, also handing over the process (for its output, signals and exit status).
package func withSampleAPIProcess<Result>(
    arguments: [String] = [],
    _ body: (_ baseURL: URL, _ process: ChildProcess) async throws -> Result
) async throws -> Result {
    try await withChildProcess("sample-api", arguments: ["--port", "0"] + arguments) { process in
        try await body(try await process.listeningURL(), process)
    }
}
