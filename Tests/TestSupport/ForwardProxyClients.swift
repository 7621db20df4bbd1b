import Foundation
import WellPlateCore
import WellPlateNetworking

/// The real clients the forward proxy is tested with, each set up the way its users set it up:
/// curl with `-x` and `--cacert`, Python `requests` with `proxies=` and `verify=`.
package enum ForwardProxyClients {
    /// `curl -s -i -x PROXY [--cacert CA] URL`: the exit status, the response (head and body) and
    /// curl's error text.
    package static func curl(_ url: String, proxy: URL, cacert: String?, in directory: URL) async throws -> CommandResult {
        var arguments = ["-s", "-S", "-i", "--max-time", "15", "-x", proxy.absoluteString]
        if let cacert { arguments += ["--cacert", cacert] }
        return try await ExternalTool.run("curl", arguments + [url], cwd: directory)
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
        return try await ExternalTool.run(arguments, cwd: directory)
    }

    /// Installs `requests` from PyPI when this Python lacks it.
    static func ensureRequests() async throws {
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
