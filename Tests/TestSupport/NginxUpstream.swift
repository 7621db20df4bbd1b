import Foundation
import WellPlateCore
import WellPlateNetworking

#if canImport(Glibc)
import Glibc
#endif

/// nginx (Debian's, scripts/ensure-deps.sh installs it) serving one directory over HTTPS with the
/// test's certificates on two ports: one that offers HTTP/2 (ALPN `h2`) and one that speaks
/// HTTP/1.1 only. It runs as the test's user in the foreground, one process (`master_process
/// off`), with its configuration, pid, logs and temp files in `directory`. The access log records
/// each request's protocol (`HTTP/2.0` or `HTTP/1.1`).
package struct NginxUpstream: Sendable {
    package init(http2: URL, http1: URL, accessLog: String) {
        self.http2 = http2
        self.http1 = http1
        self.accessLog = accessLog
    }

    package let http2: URL
    package let http1: URL
    package let accessLog: String

    /// The access log's lines so far, one per request: `PORT PROTOCOL REQUEST-URI`.
    package func accessLogLines() throws -> [String] {
        guard FileManager.default.fileExists(atPath: accessLog) else { return [] }
        return try String(contentsOfFile: accessLog, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    package static var executable: String? {
        ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs nginx serving `root` for `body` and always stops it.
    package static func with<Result>(
        root: String, certificates: TestCertificates, in directory: String, _ body: (NginxUpstream) async throws -> Result
    ) async throws -> Result {
        guard let executable else {
            throw ChildProcessError("nginx is not installed; run scripts/ensure-deps.sh (it installs Debian's nginx-light)")
        }
        let prefix = (directory as NSString).appendingPathComponent("nginx")
        try FileManager.default.createDirectory(atPath: prefix, withIntermediateDirectories: true)
        let http2Port = try freePort()
        let http1Port = try freePort()
        let accessLog = "\(prefix)/access.log"
        let configuration = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(prefix)/nginx.pid;
            error_log \(prefix)/error.log warn;
            events { worker_connections 64; }
            http {
                log_format upstream '$server_port $server_protocol $request_uri';
                access_log \(accessLog) upstream;
                client_body_temp_path \(prefix)/body;
                proxy_temp_path \(prefix)/proxy;
                fastcgi_temp_path \(prefix)/fastcgi;
                uwsgi_temp_path \(prefix)/uwsgi;
                scgi_temp_path \(prefix)/scgi;
                types { application/json json; }
                ssl_certificate \(certificates.serverCertificate);
                ssl_certificate_key \(certificates.serverKey);
                server {
                    listen 127.0.0.1:\(http2Port) ssl http2;
                    root \(root);
                }
                server {
                    listen 127.0.0.1:\(http1Port) ssl;
                    root \(root);
                }
            }
            """
        let configurationPath = "\(prefix)/nginx.conf"
        try Data(configuration.utf8).write(to: URL(fileURLWithPath: configurationPath))
        return try await withChildProcess(executable, arguments: ["-p", prefix, "-e", "\(prefix)/error.log", "-c", configurationPath]) { process in
            for port in [http2Port, http1Port] {
                try await waitUntilListening(port: port, process: process, errorLog: "\(prefix)/error.log")
            }
            let upstream = NginxUpstream(
                http2: URL(string: "https://127.0.0.1:\(http2Port)")!, http1: URL(string: "https://127.0.0.1:\(http1Port)")!, accessLog: accessLog)
            return try await body(upstream)
        }
    }

    /// nginx prints nothing when it is ready: its ports accept connections.
    private static func waitUntilListening(port: Int, process: ChildProcess, errorLog: String) async throws {
        for _ in 0..<200 {
            if (try? await RawConnection.connect(port: port)) != nil { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        let log = (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? ""
        throw ChildProcessError("nginx did not listen on port \(port) within 10 s; stderr: \(process.standardError) error log: \(log)")
    }

    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(fd) }
        return try Ports.bindLoopback(fd)
    }
}
