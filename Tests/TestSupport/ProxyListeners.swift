// The proxy tests' client is libcurl's (`ProxyClient`), so they exist only where it does.
#if canImport(CCurl)
import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

#if canImport(Glibc)
import Glibc
#endif

/// A running multi-host `cassette record` or `replay`: one listener per upstream, each announced
/// by a `listening on http://HOST:PORT for UPSTREAM` line.
package struct ProxyListeners: Sendable {
    package let process: ChildProcess
    /// In the order printed: each listener's address and the upstream it stands in for.
    package let listeners: [(url: URL, upstream: String)]
    /// The `listening on` lines as printed.
    package let lines: [String]

    /// Listener `index`'s URL for `pathAndQuery`.
    package func url(_ index: Int, _ pathAndQuery: String) -> URL {
        URL(string: listeners[index].url.absoluteString + pathAndQuery)!
    }

    package func get(_ index: Int, _ pathAndQuery: String, headers: HTTPFields = [:]) async throws -> TransportResponse {
        try await ProxyClient.send(.get, url(index, pathAndQuery), headers: headers)
    }

    /// SIGTERM, then the exit status; stdout and stderr are complete when this returns.
    package func stop() async throws -> ExitStatus {
        process.send(signal: SIGTERM)
        return try await process.waitForExit(timeout: Patience.process)
    }

    package var outputLines: [String] {
        process.standardOutput.split(separator: "\n").map(String.init)
    }

    package var summaryLine: String? {
        outputLines.last { $0.hasPrefix("recorded ") }
    }
}

/// Runs `cassette ARGUMENTS`, waits for `count` `listening on ... for ...` lines, runs `body` and
/// always stops the proxy afterwards.
package func withProxyListeners<Result>(
    _ arguments: [String], count: Int, environment: [String: String] = [:], _ body: (ProxyListeners) async throws -> Result
) async throws -> Result {
    var variables = ["NO_COLOR": "1"]
    variables.merge(environment) { _, new in new }
    await ProxySlots.shared.acquire()
    do {
        let result = try await withChildProcess("cassette", arguments: arguments, environment: variables) { process in
            try await process.waitForOutput(timeout: Patience.process, "\(count) 'listening on' lines") { output in
                output.split(separator: "\n").filter { $0.hasPrefix("listening on ") }.count >= count
            }
            let lines = process.standardOutput.split(separator: "\n").map(String.init).filter { $0.hasPrefix("listening on ") }
            let listeners = try lines.map { line in
                let parts = line.dropFirst("listening on ".count).components(separatedBy: " for ")
                guard parts.count == 2, let url = URL(string: parts[0]), url.port != nil else {
                    throw ChildProcessError("expected 'listening on http://HOST:PORT for UPSTREAM', got '\(line)'; stderr: \(process.standardError)")
                }
                return (url: url, upstream: parts[1])
            }
            return try await body(ProxyListeners(process: process, listeners: listeners, lines: lines))
        }
        await ProxySlots.shared.release()
        return result
    } catch {
        await ProxySlots.shared.release()
        throw error
    }
}
#endif
