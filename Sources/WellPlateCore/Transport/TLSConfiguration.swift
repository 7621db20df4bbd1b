import Foundation

/// How the libcurl transport verifies an HTTPS server and identifies itself to one.
///
/// The defaults verify the server against the system's CA store, as every browser does. A staging
/// API behind a private or corporate CA needs `additionalCACertificatesPath`; one that asks for a
/// client certificate (mutual TLS) needs `clientCertificatePath` (and `clientKeyPath` when the key
/// is in its own file).
public struct TLSConfiguration: Sendable, Equatable {
    /// A PEM file of CA certificates trusted in addition to the system's store.
    public var additionalCACertificatesPath: String?
    /// A PEM client certificate, sent when the server asks for one.
    public var clientCertificatePath: String?
    /// The PEM private key of `clientCertificatePath`; `nil` when the certificate file holds it.
    public var clientKeyPath: String?
    /// Skips verifying the server's certificate and host name. Never a default: anyone on the
    /// path can then read and change the traffic.
    public var insecure: Bool

    /// A configuration with the given files; the defaults verify against the system's CA store only.
    public init(additionalCACertificatesPath: String? = nil, clientCertificatePath: String? = nil, clientKeyPath: String? = nil, insecure: Bool = false) {
        self.additionalCACertificatesPath = additionalCACertificatesPath
        self.clientCertificatePath = clientCertificatePath
        self.clientKeyPath = clientKeyPath
        self.insecure = insecure
    }

    /// Nothing but the system's defaults.
    public var isDefault: Bool { self == TLSConfiguration() }

    /// Each setting filled from `other` where this one has none; `insecure` if either is.
    public func overriding(_ other: TLSConfiguration) -> TLSConfiguration {
        TLSConfiguration(
            additionalCACertificatesPath: other.additionalCACertificatesPath ?? additionalCACertificatesPath,
            clientCertificatePath: other.clientCertificatePath ?? clientCertificatePath,
            clientKeyPath: other.clientKeyPath ?? clientKeyPath,
            insecure: other.insecure || insecure
        )
    }
}

/// Which part of TLS failed, so that callers can say which setting fixes it.
public enum TLSProblem: String, Sendable, Hashable, CaseIterable {
    /// The server's certificate chain does not lead to a trusted CA (self-signed, private CA, expired).
    case untrustedCertificate
    /// The certificate is valid but names other hosts.
    case hostNameMismatch
    /// The server asked for a client certificate and refused the one sent (or none was sent).
    case clientCertificateRejected
    /// The client certificate or key could not be loaded.
    case clientCertificateUnusable
    /// The CA certificates file could not be used.
    case caCertificatesUnusable
    /// Anything else in the handshake (protocol versions, ciphers).
    case handshakeFailed
}
