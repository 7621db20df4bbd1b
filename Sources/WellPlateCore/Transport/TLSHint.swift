/// What to do about a TLS failure, in the command line's words.
package enum TLSHint {
    package static let insecureWarning = "--insecure: the upstream's certificate is not verified; anyone on the network path can read and change the traffic"

    package static func hint(for problem: TLSProblem) -> String {
        switch problem {
        case .untrustedCertificate:
            "pass --cacert FILE with the CA certificate that signed the upstream's certificate (or \"tls\": {\"cacert\": ...} for the environment in cassette.json)"
        case .hostNameMismatch:
            "use the host name the certificate was issued for in the upstream URL (--insecure skips the check, for testing only)"
        case .clientCertificateRejected:
            "the upstream requires a client certificate it trusts: pass --cert FILE (and --key FILE when the key is separate)"
        case .clientCertificateUnusable:
            "check the files given with --cert and --key: PEM certificate and its private key"
        case .caCertificatesUnusable:
            "check the file given with --cacert: PEM certificates (-----BEGIN CERTIFICATE-----)"
        case .handshakeFailed:
            "check that the upstream speaks TLS 1.2 or newer on that port (--insecure skips certificate checks, for testing only)"
        }
    }

    /// A transport error's message with the hint, when the error is a TLS failure.
    package static func message(_ error: TransportError) -> String {
        guard let problem = error.tlsProblem else { return error.message }
        return "\(error.message); \(hint(for: problem))"
    }
}
