#if canImport(CCurl)
import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// HTTPS upstreams with certificates made at test time by openssl, served by Python's ssl module.
@Suite("libcurl transport over TLS")
struct CurlTransportTLSTests {
    private func withHTTPS<R>(requireClientCertificate: Bool = false, _ body: (URL, TestCertificates) async throws -> R) async throws -> R {
        let directory = try TemporaryDirectory(prefix: "tls")
        let certificates = try await TestCertificates.make(in: directory.url.path)
        let tls = PythonUpstream.TLS(
            certificate: certificates.serverCertificate, key: certificates.serverKey,
            requiredClientCA: requireClientCertificate ? certificates.caCertificate : nil)
        return try await PythonUpstream.with(tls: tls, in: directory.url.path) { base in
            try await body(base, certificates)
        }
    }

    private func transport(_ tls: TLSConfiguration) throws -> CurlTransport {
        var configuration = CurlTransport.Configuration()
        configuration.tls = tls
        return try CurlTransport(configuration: configuration)
    }

    @Test func aPrivateCAIsUntrustedByDefaultWithAProblemSaying() async throws {
        try await withHTTPS { base, _ in
            let error = await #expect(throws: TransportError.self) {
                try await transport(TLSConfiguration()).send(TransportRequest(method: .get, url: base.appending(pathAndQuery: "/api/hello")))
            }
            #expect(error?.kind == .tls)
            #expect(error?.tlsProblem == .untrustedCertificate)
        }
    }

    @Test func anAdditionalCAIsTrustedAndTheSystemStoreStillIs() async throws {
        try await withHTTPS { base, certificates in
            let tls = try CurlTLS(TLSConfiguration(additionalCACertificatesPath: certificates.caCertificate))
            let bundle = try #require(tls.trustBundle)
            let ours = try Data(contentsOf: URL(fileURLWithPath: certificates.caCertificate))
            // The system's CAs come first, ours after: both are trusted.
            #expect(bundle.count > ours.count)
            #expect(bundle.suffix(ours.count) == ours)

            let response = try await transport(TLSConfiguration(additionalCACertificatesPath: certificates.caCertificate))
                .send(TransportRequest(method: .get, url: base.appending(pathAndQuery: "/api/hello")))
            #expect(response.statusCode == 200)
            let reply = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
            #expect(reply["hello"] as? String == "world")
            #expect(reply["client"] is NSNull)
        }
    }

    @Test func theWrongCAIsStillUntrusted() async throws {
        try await withHTTPS { base, certificates in
            let error = await #expect(throws: TransportError.self) {
                try await transport(TLSConfiguration(additionalCACertificatesPath: certificates.otherCACertificate))
                    .send(TransportRequest(method: .get, url: base.appending(pathAndQuery: "/api/hello")))
            }
            #expect(error?.tlsProblem == .untrustedCertificate)
        }
    }

    @Test func insecureSkipsVerification() async throws {
        try await withHTTPS { base, _ in
            let response = try await transport(TLSConfiguration(insecure: true)).send(
                TransportRequest(method: .get, url: base.appending(pathAndQuery: "/api/hello")))
            #expect(response.statusCode == 200)
        }
    }

    @Test func aHostNameTheCertificateDoesNotNameIsReportedAsSuch() async throws {
        try await withHTTPS { base, certificates in
            // The certificate names 127.0.0.1 only; localhost reaches the same server.
            guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else { return }
            components.host = "localhost"
            let error = await #expect(throws: TransportError.self) {
                try await transport(TLSConfiguration(additionalCACertificatesPath: certificates.caCertificate))
                    .send(TransportRequest(method: .get, url: components.url!.appending(pathAndQuery: "/api/hello")))
            }
            #expect(error?.tlsProblem == .hostNameMismatch, "\(String(describing: error))")
        }
    }

    @Test func aServerThatRequiresAClientCertificateGetsOne() async throws {
        try await withHTTPS(requireClientCertificate: true) { base, certificates in
            let url = base.appending(pathAndQuery: "/api/hello")
            let error = await #expect(throws: TransportError.self) {
                try await transport(TLSConfiguration(additionalCACertificatesPath: certificates.caCertificate)).send(TransportRequest(method: .get, url: url))
            }
            #expect(error?.tlsProblem == .clientCertificateRejected, "\(String(describing: error))")

            let separate = TLSConfiguration(
                additionalCACertificatesPath: certificates.caCertificate, clientCertificatePath: certificates.clientCertificate,
                clientKeyPath: certificates.clientKey)
            let response = try await transport(separate).send(TransportRequest(method: .get, url: url))
            #expect(try JSONSerialization.jsonObject(with: response.body) as? [String: String] == ["hello": "world", "client": "cassette-test-client"])

            let combined = TLSConfiguration(
                additionalCACertificatesPath: certificates.caCertificate, clientCertificatePath: certificates.clientCertificateAndKey)
            #expect(try await transport(combined).send(TransportRequest(method: .get, url: url)).statusCode == 200)
        }
    }

    @Test func filesThatAreMissingOrNotPEMFailWhenTheTransportStarts() throws {
        let directory = try TemporaryDirectory(prefix: "tls")
        let missing = directory.path("missing.pem")
        #expect(throws: TransportError(.tls, "cannot use the CA certificates file \(missing): it does not exist", tlsProblem: .caCertificatesUnusable)) {
            _ = try CurlTLS(TLSConfiguration(additionalCACertificatesPath: missing))
        }
        let notPEM = directory.path("not.pem")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: notPEM))
        let error = #expect(throws: TransportError.self) {
            _ = try CurlTLS(TLSConfiguration(clientCertificatePath: notPEM))
        }
        #expect(error?.tlsProblem == .clientCertificateUnusable)
    }

    @Test func theAPIClientBuiltFromAnAppConfigUsesItsTLSSettings() async throws {
        try await withHTTPS(requireClientCertificate: true) { base, certificates in
            let directory = try TemporaryDirectory(prefix: "tls-config")
            // Relative paths are resolved against the configuration file.
            try FileManager.default.copyItem(atPath: certificates.caCertificate, toPath: directory.path("ca.pem"))
            try FileManager.default.copyItem(atPath: certificates.clientCertificateAndKey, toPath: directory.path("client.pem"))
            let file = directory.path("wellplate.json")
            try Data(#"{"baseURL": "\#(base.absoluteString)", "tls": {"cacert": "ca.pem", "cert": "client.pem"}}"#.utf8).write(to: URL(fileURLWithPath: file))
            let config = try AppConfig.load(from: file, environmentVariables: [:])
            #expect(config.tls == TLSConfiguration(additionalCACertificatesPath: directory.path("ca.pem"), clientCertificatePath: directory.path("client.pem")))
            let client = try await APIClientFactory.make(config: config)
            let reply: [String: String] = try await client.request(
                url: config.baseURL.appending(pathAndQuery: "/api/hello"), method: .get, headers: nil, body: nil, responseType: [String: String].self)
            #expect(reply == ["hello": "world", "client": "cassette-test-client"])
        }
    }

    @Test func productionRefusesInsecure() throws {
        var config = AppConfig.production()
        config.tls.insecure = true
        #expect(throws: ConfigError.self) { try config.validate() }
    }
}
#endif
