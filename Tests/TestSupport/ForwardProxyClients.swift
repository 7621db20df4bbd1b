import Foundation
import WellPlateCore
import WellPlateNetworking

/// The real clients the forward proxy is tested with, each set up the way its users set it up:
/// curl with `-x` and `--cacert`, Python `requests` with `proxies=` and `verify=`. Started with
/// `ChildProcess` (posix_spawn), not Foundation's `Process`, whose `run()` in Swift 6.3.1 on Linux
/// over-reads `/proc/self/fd` entries and crashes a test run now and then
/// (swift-corelibs-foundation#5472): these tests start many clients.
package enum ForwardProxyClients {
    /// `curl -s -i -x PROXY [--cacert CA] [OPTIONS] URL`: the exit status, the response (head and
    /// body) and curl's error text.
    package static func curl(
        _ url: String, proxy: URL, cacert: String?, headers: [String] = [], options: [String] = [], in directory: URL
    ) async throws -> CommandResult {
        var arguments = ["-s", "-S", "-i", "--max-time", "15", "-x", proxy.absoluteString] + options
        if let cacert { arguments += ["--cacert", cacert] }
        for header in headers { arguments += ["-H", header] }
        return try await run(["curl"] + arguments + [url], in: directory)
    }

    /// Python `requests.get(URL, proxies=..., verify=CA)`; prints the status, `X-Cassette` and the body.
    package static func python(_ url: String, proxy: URL, verify: String?, in directory: URL) async throws -> CommandResult {
        try await ensureRequests()
        let script = """
            import sys, requests
            try:
                r = requests.get(sys.argv[1], proxies={"http": sys.argv[2], "https": sys.argv[2]}, verify=sys.argv[3] if len(sys.argv) > 3 else True, timeout=15)
            except requests.exceptions.SSLError as e:
                print("SSLError", e)
                sys.exit(3)
            print(r.status_code, r.headers.get("X-Cassette"), r.text)
            """
        var arguments = ["python3", "-c", script, url, proxy.absoluteString]
        if let verify { arguments.append(verify) }
        return try await run(arguments, in: directory)
    }

    /// Runs `arguments` (looked up on PATH) in `directory` to completion.
    private static func run(_ arguments: [String], in directory: URL) async throws -> CommandResult {
        let commandLine = ["-c", #"cd "$0" && exec "$@""#, directory.path] + arguments
        return try await withChildProcess("/bin/sh", arguments: commandLine) { process in
            let status = try await process.waitForExit(timeout: .seconds(60))
            let code: Int32 =
                switch status {
                case .exited(let code): code
                case .signalled(let signal): 128 + signal
                }
            return CommandResult(status: code, stdout: process.standardOutput, stderr: process.standardError)
        }
    }

    /// Installs `requests` from PyPI when this Python lacks it.
    package static func ensureRequests() async throws {
        let check = try await ExternalTool.run(["python3", "-c", "import requests"], cwd: ExternalTool.packageRoot)
        guard check.status != 0 else { return }
        let install = try await ExternalTool.run(["python3", "-m", "pip", "install", "--quiet", "--user", "requests"], cwd: ExternalTool.packageRoot)
        if install.status != 0 {
            let retry = try await ExternalTool.run(
                ["python3", "-m", "pip", "install", "--quiet", "--user", "--break-system-packages", "requests"], cwd: ExternalTool.packageRoot)
            guard retry.status == 0 else { throw ChildProcessError("could not install Python requests: \(retry.stderr)") }
        }
    }
}
