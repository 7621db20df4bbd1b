import CassetteKernel
import CassetteServing
import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import Synchronization
import X509

/// The TLS server contexts the forward proxy shows clients, one per intercepted host, each with a
/// certificate for that host issued by the local authority on first use and kept for the run:
/// only the first connection to a new host pays for the signature and the context. All share one
/// key, made when the proxy starts and never written anywhere. ALPN offers `h2` and `http/1.1`
/// (`HTTPPipeline.alpnProtocols`): the intercepted connection is served over whichever the client
/// chooses, as a plain listener serves both.
package final class LeafCertificates: Sendable {
    package let authority: CertificateAuthority
    private let key: P256.Signing.PrivateKey
    private let nioKey: NIOSSLPrivateKey
    private let issuerCertificate: NIOSSLCertificate
    private let contexts = Mutex<[String: NIOSSLContext]>([:])

    package init(authority: CertificateAuthority) throws {
        self.authority = authority
        key = P256.Signing.PrivateKey()
        nioKey = try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem)
        var serializer = DER.Serializer()
        try serializer.serialize(authority.certificate)
        issuerCertificate = try NIOSSLCertificate(bytes: serializer.serializedBytes, format: .der)
    }

    /// The server context for `host` (lower-cased by the caller), made on first use.
    package func context(for host: String) throws -> NIOSSLContext {
        if let known = contexts.withLock({ $0[host] }) { return known }
        let certificate = try authority.issue(for: host, key: key)
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        let leaf = try NIOSSLCertificate(bytes: serializer.serializedBytes, format: .der)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(leaf), .certificate(issuerCertificate)], privateKey: .privateKey(nioKey))
        configuration.applicationProtocols = HTTPPipeline.alpnProtocols
        configuration.minimumTLSVersion = .tlsv12
        // Clients are not asked for certificates, so no trust store is needed: without this each
        // new host's context would load the system's (tens of milliseconds).
        configuration.trustRoots = .certificates([])
        let context = try NIOSSLContext(configuration: configuration)
        // Two connections racing for a new host keep whichever context was stored first.
        return contexts.withLock { stored in
            if let first = stored[host] { return first }
            stored[host] = context
            return context
        }
    }
}
