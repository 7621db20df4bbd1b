import Foundation

/// nghttpd (Debian's nghttp2-server), serving the files of a directory over HTTP/2 with prior
/// knowledge (h2c) only: to an HTTP/1.1 request it answers with its SETTINGS frame and closes,
/// which libcurl 7.88 reports as "Received HTTP/0.9 when not allowed". The peer for an origin
/// that stops speaking HTTP/1.1. scripts/ensure-deps.sh installs it on first use.
package enum H2COnlyUpstream {
    /// Runs nghttpd on 127.0.0.1:`port` serving `directory` for `body` (its `http://127.0.0.1:PORT`)
    /// and always stops it. The port is the caller's: nghttpd does not say which one it was given
    /// for 0.
    package static func with<Result>(directory: String, port: Int, _ body: (_ url: URL) async throws -> Result) async throws -> Result {
        let installer = ExternalTool.packageRoot.appendingPathComponent("scripts/ensure-deps.sh").path
        let installed = try await ExternalTool.run(["bash", installer, "nghttpd"], cwd: ExternalTool.packageRoot)
        guard installed.status == 0 else { throw ChildProcessError("could not install nghttpd (nghttp2-server): \(installed.stderr)") }
        // Debian puts it in /usr/sbin, which a user's PATH may leave out.
        let executable = FileManager.default.isExecutableFile(atPath: "/usr/sbin/nghttpd") ? "/usr/sbin/nghttpd" : "nghttpd"
        let arguments = ["--no-tls", "--verbose", "--address=127.0.0.1", "--htdocs=\(directory)", "\(port)"]
        return try await withChildProcess("/usr/bin/env", arguments: [executable] + arguments) { process in
            // --verbose says "IPv4: listen 127.0.0.1:PORT" once the socket listens (then every frame).
            try await process.waitForOutput("the listening line") { $0.contains("IPv4: listen 127.0.0.1:\(port)") }
            return try await body(URL(string: "http://127.0.0.1:\(port)")!)
        }
    }
}
