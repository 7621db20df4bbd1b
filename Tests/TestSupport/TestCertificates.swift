import Foundation
import WellPlateCore
import WellPlateNetworking

/// Certificates made at test time with the `openssl` command-line tool (scripts/test.sh installs
/// it): a CA, a server certificate it signed for 127.0.0.1 and ::1 (not for localhost), one for localhost,
/// a second CA that signed nothing the server uses, a client certificate signed by the first CA, and
/// one for the name `localhost` alone (no address), signed by the first CA.
package struct TestCertificates: Sendable {
    package init(directory: String) {
        self.directory = directory
    }

    package let directory: String

    package var caCertificate: String { path("ca.pem") }
    package var serverCertificate: String { path("server.pem") }
    package var serverKey: String { path("server.key") }
    package var otherCACertificate: String { path("other-ca.pem") }
    package var clientCertificate: String { path("client.pem") }
    package var clientKey: String { path("client.key") }
    /// The client certificate followed by its key, for a single `--cert` file.
    package var clientCertificateAndKey: String { path("client-with-key.pem") }
    /// A server certificate for `localhost` and 127.0.0.1, signed by the first CA.
    package var localhostCertificate: String { path("localhost.pem") }
    package var localhostKey: String { path("localhost.key") }
    /// A server certificate for `localhost` only, with no IP address among its names: trusted
    /// through the first CA, yet not valid for a connection made to 127.0.0.1.
    package var nameOnlyCertificate: String { path("name-only.pem") }
    package var nameOnlyKey: String { path("name-only.key") }

    package func path(_ name: String) -> String {
        (directory as NSString).appendingPathComponent(name)
    }

    /// Makes every file in `directory` (which must exist).
    package static func make(in directory: String) async throws -> TestCertificates {
        let certificates = TestCertificates(directory: directory)
        try await certificates.makeCA("ca", subject: "/CN=Cassette Test CA")
        try await certificates.makeCA("other-ca", subject: "/CN=Unrelated Test CA")
        try await certificates.makeLeaf(
            "server", subject: "/CN=127.0.0.1", extensions: "subjectAltName=IP:127.0.0.1,IP:::1\nextendedKeyUsage=serverAuth")
        try await certificates.makeLeaf(
            "localhost", subject: "/CN=localhost", extensions: "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth")
        try await certificates.makeLeaf("name-only", subject: "/CN=localhost", extensions: "subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth")
        try await certificates.makeLeaf("client", subject: "/CN=cassette-test-client", extensions: "extendedKeyUsage=clientAuth")
        let combined =
            try Data(contentsOf: URL(fileURLWithPath: certificates.clientCertificate)) + Data(contentsOf: URL(fileURLWithPath: certificates.clientKey))
        try combined.write(to: URL(fileURLWithPath: certificates.clientCertificateAndKey))
        return certificates
    }

    private func makeCA(_ name: String, subject: String) async throws {
        try await Self.openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", subject,
            "-keyout", path("\(name).key"), "-out", path("\(name).pem"),
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
    }

    private func makeLeaf(_ name: String, subject: String, extensions: String) async throws {
        // P-256 rather than RSA: a key in milliseconds, where RSA-2048 generation took over 30 s
        // on a loaded two-core machine and timed suites out.
        try await Self.openssl([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", subject, "-keyout", path("\(name).key"), "-out",
            path("\(name).csr"),
        ])
        try Data(extensions.utf8).write(to: URL(fileURLWithPath: path("\(name).ext")))
        try await Self.openssl([
            "x509", "-req", "-in", path("\(name).csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
            "-CAcreateserial", "-days", "2", "-extfile", path("\(name).ext"), "-out", path("\(name).pem"),
        ])
    }

    private static func openssl(_ arguments: [String]) async throws {
        try await withChildProcess("/usr/bin/env", arguments: ["openssl"] + arguments) { process in
            let status = try await process.waitForExit(timeout: Patience.process)
            guard status == .exited(0) else {
                throw ChildProcessError(
                    "openssl \(arguments.prefix(2).joined(separator: " ")) \(status): \(process.standardError) (scripts/test.sh installs openssl)")
            }
        }
    }
}
