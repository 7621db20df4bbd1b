import Foundation
import Testing
import WellPlateCore

/// `TransportError.Kind` is a struct over a code, so that a kind added later does not break an
/// app's `switch`; these tests pin what apps see of it: names, equality, matching and messages.
@Suite("TransportError")
struct TransportErrorTests {
    /// Every kind, in the order of the code, as an app names them.
    static let kinds: [TransportError.Kind] = [
        .timeout, .cannotConnect, .dnsFailure, .tls, .connectionLost, .invalidURL, .invalidRequest,
        .responseTooLarge, .tooManyRedirects, .shutdown, .other,
    ]

    @Test func eachKindIsNamedAsInCodeAndDistinct() {
        #expect(
            Self.kinds.map(\.description) == [
                "timeout", "cannotConnect", "dnsFailure", "tls", "connectionLost", "invalidURL", "invalidRequest",
                "responseTooLarge", "tooManyRedirects", "shutdown", "other",
            ])
        #expect(Set(Self.kinds).count == Self.kinds.count)
        // No code lacks a static member.
        #expect(Self.kinds.map(\.code) == TransportError.Kind.Code.allCases)
    }

    @Test func theMessageIsUnchangedWithAndWithoutACurlCode() {
        let plain = TransportError(.cannotConnect, "GET http://127.0.0.1:1/: could not connect")
        #expect(plain.description == "GET http://127.0.0.1:1/: could not connect")
        #expect(plain.errorDescription == plain.description)
        #expect(plain.localizedDescription == plain.description)

        let curl = TransportError(.timeout, "GET http://x/: timed out after 5 s", curlCode: 28)
        #expect(curl.description == "GET http://x/: timed out after 5 s (curl error 28)")
        #expect(curl.localizedDescription == "GET http://x/: timed out after 5 s (curl error 28)")
        #expect("\(curl)" == curl.description)
    }

    @Test func errorsAreEqualWhenKindMessageCodeAndProblemAre() {
        let error = TransportError(.tls, "GET https://x/: untrusted", curlCode: 60, tlsProblem: .untrustedCertificate)
        #expect(error == TransportError(.tls, "GET https://x/: untrusted", curlCode: 60, tlsProblem: .untrustedCertificate))
        #expect(error != TransportError(.connectionLost, "GET https://x/: untrusted", curlCode: 60, tlsProblem: .untrustedCertificate))
        #expect(error != TransportError(.tls, "GET https://x/: untrusted", curlCode: 35, tlsProblem: .untrustedCertificate))
        #expect(error != TransportError(.tls, "GET https://x/: untrusted", curlCode: 60, tlsProblem: .handshakeFailed))
        #expect(error != TransportError(.tls, "GET https://y/: untrusted", curlCode: 60, tlsProblem: .untrustedCertificate))
        #expect(error.kind == .tls)
        #expect(error.kind != .timeout)
    }

    /// What an app writes: a `switch` over the kind with a `default`, matched through `==`.
    static func advice(for error: TransportError) -> String {
        switch error.kind {
        case .timeout: "retry later"
        case .cannotConnect, .dnsFailure: "check the address"
        case .tls: "check the certificate"
        default: "report it"
        }
    }

    @Test func aSwitchWithADefaultMatchesEachKind() {
        let advice = Self.kinds.map { Self.advice(for: TransportError($0, "failed")) }
        #expect(
            advice == [
                "retry later", "check the address", "check the address", "check the certificate", "report it", "report it", "report it",
                "report it", "report it", "report it", "report it",
            ])
    }

    @Test func onlyTimeoutsRefusalsAndLostConnectionsAreTransient() {
        #expect(Self.kinds.filter { TransportError($0, "failed").isTransient } == [.timeout, .cannotConnect, .connectionLost])
    }

    @Test func aKindCanBeChangedAfterTheFact() {
        var error = TransportError(.connectionLost, "GET https://x/: reset", curlCode: 56)
        error.kind = .tls
        #expect(error.kind == .tls)
        #expect(error.description == "GET https://x/: reset (curl error 56)")
    }
}
