import Foundation
import TestSupport
import Testing

/// `cassette request` against an HTTPS upstream whose certificates the test made with openssl: it
/// takes the TLS options `cassette record` takes (tested in-process in `ProxyTLSUpstreamTests`).
@Suite("cassette request with an HTTPS upstream")
final class RequestCommandTLSTests {
    let workspace: CLIWorkspace

    init() throws {
        workspace = try CLIWorkspace()
    }

    private func withHTTPS<R>(_ body: (URL, TestCertificates) async throws -> R) async throws -> R {
        let certificates = try await TestCertificates.make(in: workspace.directory.path)
        let tls = PythonUpstream.TLS(certificate: certificates.serverCertificate, key: certificates.serverKey, requiredClientCA: nil)
        return try await PythonUpstream.with(tls: tls, in: workspace.directory.path) { base in
            try await body(base, certificates)
        }
    }

    @Test func theRequestCommandTakesTheSameOptions() async throws {
        try await withHTTPS { base, certificates in
            let url = base.appending(pathAndQuery: "/api/hello").absoluteString
            let refused = try await workspace.run("request", url)
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("--cacert FILE"), "\(refused)")
            let trusted = try await workspace.run("request", url, "--cacert", certificates.caCertificate)
            #expect(trusted.status == 0, "\(trusted)")
            #expect(trusted.stdout.contains("\"hello\" : \"world\"") || trusted.stdout.contains("\"hello\": \"world\""), "\(trusted)")
        }
    }
}
