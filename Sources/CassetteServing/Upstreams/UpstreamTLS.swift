import NIOSSL
import WellPlateCore

/// swift-nio-ssl's client side for the upstreams libcurl does not reach (WebSocket, gRPC): the
/// listener's TLS settings (`--cacert`, `--cert`/`--key`, `--insecure`) mean what they mean to
/// libcurl (`CurlTLS`).
package enum UpstreamTLS {
    /// A client configuration under `settings`; `applicationProtocols` are offered in ALPN (`h2`
    /// for gRPC, whose servers refuse a connection that did not select it). Throws when a file
    /// named in `settings` cannot be read.
    package static func clientConfiguration(
        _ settings: WellPlateCore.TLSConfiguration, applicationProtocols: [String] = []
    ) throws -> NIOSSL.TLSConfiguration {
        var configuration = NIOSSL.TLSConfiguration.makeClientConfiguration()
        configuration.applicationProtocols = applicationProtocols
        if settings.insecure { configuration.certificateVerification = .none }
        if let path = settings.additionalCACertificatesPath {
            configuration.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMFile(path))]
        }
        if let certificate = settings.clientCertificatePath {
            // As with libcurl's `--cert`, the key may be in the certificate's own file.
            let key = try NIOSSLPrivateKey(file: settings.clientKeyPath ?? certificate, format: .pem)
            configuration.certificateChain = try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) }
            configuration.privateKey = .privateKey(key)
        }
        return configuration
    }

    /// The name for SNI and the certificate's check, for every `NIOSSLClientHandler` towards an
    /// upstream: none for an IP address, which SNI cannot carry (RFC 6066 §3; swift-nio-ssl throws
    /// `cannotUseIPAddressInSNI`). swift-nio-ssl then checks the certificate against the address
    /// connected to (its IP entries), so `--cacert` still verifies an upstream given by address.
    package static func serverHostname(_ host: String) -> String? {
        IPAddressBytes(host) == nil ? host : nil
    }

    /// What a TLS failure towards `upstream` (`https://host:port`) means and what to do about it,
    /// in one sentence that names the upstream once, for a log line or an error; `nil` when
    /// `error` is not about TLS. swift-nio-ssl's own words name neither the host nor the flag
    /// that helps ("Couldn't find <none> in certificate").
    package static func explained(_ error: any Error, upstream: String) -> String? {
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return
                "the certificate of the upstream \(upstream) is not for its host (an address must be among the certificate's IP entries): give the upstream by a name its certificate carries, or skip the check with --insecure"
        }
        if case .handshakeFailed = error as? NIOSSLError {
            return
                "the TLS handshake with the upstream \(upstream) failed (\(handshakeReason(error))): trust its CA with --cacert FILE, or skip the check with --insecure"
        }
        return nil
    }

    /// BoringSSL's reason (`CERTIFICATE_VERIFY_FAILED`) out of swift-nio-ssl's description, which
    /// also names a source file and line of BoringSSL's.
    package static func handshakeReason(_ error: any Error) -> String {
        let text = "\(error)"
        guard let start = text.range(of: "OPENSSL_internal:")?.upperBound else { return text }
        return String(text[start...].prefix { $0 != " " && $0 != "]" })
    }
}
