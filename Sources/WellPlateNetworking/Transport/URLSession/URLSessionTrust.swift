import Foundation
import WellPlateCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Security)
import Security
#endif

/// The TLS settings `URLSessionTransport` can apply: extra trusted CAs and `insecure`, evaluated
/// in the session delegate's server-trust challenge on Apple platforms. `nil` for the defaults.
struct URLSessionTrust: Sendable {
    /// The extra CAs, DER-encoded.
    let anchors: [Data]
    let insecure: Bool

    /// - Throws: `TransportError` `.tls` for settings this platform cannot apply, or a CA file
    ///   that cannot be read or holds no PEM certificate.
    init?(_ tls: TLSConfiguration) throws(TransportError) {
        guard !tls.isDefault else { return nil }
        if tls.clientCertificatePath != nil || tls.clientKeyPath != nil {
            throw TransportError(
                .tls, "URLSessionTransport cannot present a client certificate from PEM files (URLSession needs a keychain identity); use CurlTransport",
                tlsProblem: .clientCertificateUnusable)
        }
        #if canImport(Security)
        var anchors: [Data] = []
        if let path = tls.additionalCACertificatesPath {
            anchors = try Self.certificates(atPath: path)
        }
        self.anchors = anchors
        insecure = tls.insecure
        #else
        throw TransportError(
            .tls,
            "URLSessionTransport cannot use a custom CA or skip verification here: FoundationNetworking on Linux has no trust evaluation; use CurlTransport, or add the CA to the system's trust store",
            tlsProblem: .caCertificatesUnusable)
        #endif
    }

    /// The DER certificates of a PEM file.
    static func certificates(atPath path: String) throws(TransportError) -> [Data] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw TransportError(.tls, "cannot read the CA file \(path); check the path", tlsProblem: .caCertificatesUnusable)
        }
        var certificates: [Data] = []
        var base64: String?
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "-----BEGIN CERTIFICATE-----" {
                base64 = ""
            } else if trimmed == "-----END CERTIFICATE-----", let collected = base64 {
                if let der = Data(base64Encoded: collected) { certificates.append(der) }
                base64 = nil
            } else if base64 != nil {
                base64! += trimmed
            }
        }
        guard !certificates.isEmpty else {
            throw TransportError(.tls, "the CA file \(path) holds no PEM certificate", tlsProblem: .caCertificatesUnusable)
        }
        return certificates
    }

    #if canImport(Security)
    /// Trusts the server when its chain ends in a system CA or one of `anchors` (or always, when
    /// `insecure`); other challenges get the default handling.
    func evaluate(_ challenge: URLAuthenticationChallenge) -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
            let serverTrust = challenge.protectionSpace.serverTrust
        else { return (.performDefaultHandling, nil) }
        if insecure { return (.useCredential, URLCredential(trust: serverTrust)) }
        let certificates = anchors.compactMap { SecCertificateCreateWithData(nil, $0 as CFData) }
        SecTrustSetAnchorCertificates(serverTrust, certificates as CFArray)
        SecTrustSetAnchorCertificatesOnly(serverTrust, false)
        var error: CFError?
        guard SecTrustEvaluateWithError(serverTrust, &error) else { return (.cancelAuthenticationChallenge, nil) }
        return (.useCredential, URLCredential(trust: serverTrust))
    }
    #endif
}
