import Crypto
import Foundation
import SwiftASN1
import Testing
import WellPlateCore
import X509

@testable import CassetteForward
@testable import CassetteKernel
@testable import CassetteProxy
@testable import CassetteServing
@testable import CassetteUIServer
@testable import CassetteWebSocket

/// The forward proxy's decisions without a socket: which hosts are intercepted, how a CONNECT
/// target is read, and what the certificates it shows say.
@Suite("Forward proxy decisions")
struct ForwardDecisionTests {
    @Test(arguments: [
        ("*.example.com", "api.example.com", true), ("*.example.com", "a.b.example.com", true), ("*.example.com", "example.com", false),
        ("api.example.com", "API.Example.COM", true), ("api.example.com", "api.example.com.evil", false), ("10.0.0.?", "10.0.0.7", true),
        ("10.0.0.?", "10.0.0.17", false), ("*", "anything", true), ("a*b*c", "aXXbYYc", true), ("a*b*c", "aXXbYY", false),
    ])
    func hostPatternsAreGlobsOnTheHostIgnoringCase(pattern: String, host: String, matches: Bool) {
        #expect(HostPattern(pattern).matches(host) == matches)
    }

    @Test func passthroughWinsOverTheFilterAndTheReasonNamesTheFlag() {
        let options = ForwardOptions(caDirectory: "/unused", hostFilters: [HostPattern("*.example.com")], passthroughHosts: [HostPattern("pay.example.com")])
        #expect(options.exclusion(of: "api.example.com") == nil)
        #expect(options.exclusion(of: "pay.example.com") == "--passthrough-host pay.example.com")
        #expect(options.exclusion(of: "cdn.other.net") == "outside --host-filter *.example.com")
        #expect(ForwardOptions(caDirectory: "/unused").exclusion(of: "anything") == nil)
    }

    @Test(arguments: [
        ("api.example.com:443", "api.example.com", 443), ("[::1]:8443", "::1", 8443), ("127.0.0.1:1", "127.0.0.1", 1),
    ])
    func connectTargetsAreHostAndPort(target: String, host: String, port: Int) throws {
        let parsed = try #require(ConnectHandler.authority(target))
        #expect(parsed.0 == host && parsed.1 == port)
    }

    @Test(arguments: ["api.example.com", "api.example.com:0", "api.example.com:70000", "http://x:443", "user@x:443", ":443"])
    func malformedConnectTargetsAreRefused(target: String) {
        #expect(ConnectHandler.authority(target) == nil)
    }

    @Test func originsAreSpelledAsKeysSpellThem() {
        #expect(ForwardRouter.origin(scheme: "https", host: "API.example.com", port: 443) == "https://api.example.com")
        #expect(ForwardRouter.origin(scheme: "https", host: "localhost", port: 8443) == "https://localhost:8443")
        #expect(ForwardRouter.origin(scheme: "https", host: "::1", port: 443) == "https://[::1]")
    }

    @Test func leafCertificatesNameTheirHostAndAreSignedByTheAuthority() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ca-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let authority = try CertificateAuthority.create(in: directory)
        let key = P256.Signing.PrivateKey()
        let named = try authority.issue(for: "api.example.com", key: key)
        #expect(named.issuer == authority.certificate.subject)
        #expect(try named.extensions.subjectAlternativeNames?.contains(.dnsName("api.example.com")) == true)
        #expect(try named.extensions.basicConstraints == .notCertificateAuthority)
        #expect(authority.certificate.publicKey.isValidSignature(named.signature, for: named))
        let address = try authority.issue(for: "127.0.0.1", key: key)
        #expect(try address.extensions.subjectAlternativeNames?.contains(.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))) == true)
        // Loaded again from its files, it is the same authority.
        let loaded = try CertificateAuthority.load(from: directory)
        #expect(loaded.certificate == authority.certificate)
    }
}
