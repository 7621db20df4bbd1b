#if canImport(CCurl)
import CCurl
import Foundation
import WellPlateCore

/// A `TLSConfiguration` checked and loaded once, when the transport starts: a wrong path fails
/// there with a message naming the file, rather than as a handshake error on every request.
struct CurlTLS: Sendable {
    let configuration: TLSConfiguration
    /// The system's CA bundle followed by the additional CA certificates. libcurl's CAINFO
    /// *replaces* the system store, so trusting a private CA "in addition" means handing it both.
    let trustBundle: Data?

    init(_ configuration: TLSConfiguration) throws(TransportError) {
        self.configuration = configuration
        if let path = configuration.additionalCACertificatesPath {
            let additional = try Self.readPEM(path, what: "CA certificates file", mustContain: "-----BEGIN CERTIFICATE-----", problem: .caCertificatesUnusable)
            var bundle = try Self.systemBundle() ?? Data()
            if !bundle.isEmpty && bundle.last != UInt8(ascii: "\n") { bundle.append(UInt8(ascii: "\n")) }
            bundle.append(additional)
            trustBundle = bundle
        } else {
            trustBundle = nil
        }
        if let certificate = configuration.clientCertificatePath {
            let pem = try Self.readPEM(
                certificate, what: "client certificate file", mustContain: "-----BEGIN CERTIFICATE-----", problem: .clientCertificateUnusable)
            if let key = configuration.clientKeyPath {
                _ = try Self.readPEM(key, what: "client key file", mustContain: "PRIVATE KEY-----", problem: .clientCertificateUnusable)
            } else if pem.range(of: Data("PRIVATE KEY-----".utf8)) == nil {
                throw TransportError(
                    .tls, "the client certificate file \(certificate) holds no private key and no key file was given", tlsProblem: .clientCertificateUnusable)
            }
        } else if let key = configuration.clientKeyPath {
            throw TransportError(.tls, "a client key (\(key)) was given without a client certificate", tlsProblem: .clientCertificateUnusable)
        }
    }

    /// Sets the TLS options on an easy handle (loop thread); `id` names the transfer for
    /// `clientCertificateWasRequested`.
    package func apply(to easy: UnsafeMutableRawPointer, id: UInt) throws(TransportError) {
        if configuration.clientCertificatePath == nil {
            // Only diagnostics depend on it; a TLS library without the hook is no error.
            _ = ccurl_easy_watch_certificate_requests(easy, id)
        }
        if configuration.insecure {
            try CurlError.check(ccurl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 0), "disable certificate verification")
            try CurlError.check(ccurl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 0), "disable host name verification")
        }
        if let trustBundle {
            let code = trustBundle.withUnsafeBytes { raw in
                ccurl_easy_setopt_blob_copy(easy, CURLOPT_CAINFO_BLOB, raw.baseAddress, raw.count)
            }
            try CurlError.check(code, "set the trusted CA certificates")
        }
        if let certificate = configuration.clientCertificatePath {
            try CurlError.check(ccurl_easy_setopt_string(easy, CURLOPT_SSLCERT, certificate), "set the client certificate")
            try CurlError.check(ccurl_easy_setopt_string(easy, CURLOPT_SSLCERTTYPE, "PEM"), "set the client certificate type")
        }
        if let key = configuration.clientKeyPath {
            try CurlError.check(ccurl_easy_setopt_string(easy, CURLOPT_SSLKEY, key), "set the client key")
        }
    }

    /// Whether the server of transfer `id` asked for a client certificate that was not configured
    /// (loop thread, after the transfer failed).
    func clientCertificateWasRequested(id: UInt) -> Bool {
        configuration.clientCertificatePath == nil && ccurl_certificate_was_requested(id) != 0
    }

    private static func readPEM(_ path: String, what: String, mustContain marker: String, problem: TLSProblem) throws(TransportError) -> Data {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "it cannot be read" : "it does not exist"
            throw TransportError(.tls, "cannot use the \(what) \(path): \(reason)", tlsProblem: problem)
        }
        guard data.range(of: Data(marker.utf8)) != nil else {
            throw TransportError(.tls, "the \(what) \(path) is not PEM (no \"\(marker)\" line)", tlsProblem: problem)
        }
        return data
    }

    /// The CA bundle this libcurl build trusts by default, else the usual Linux locations.
    private static func systemBundle() throws(TransportError) -> Data? {
        try CurlGlobal.ensureInitialized()
        var candidates: [String] = []
        if let easy = curl_easy_init() {
            if let path = ccurl_default_cainfo(easy) { candidates.append(String(cString: path)) }
            curl_easy_cleanup(easy)
        }
        candidates += ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem"]
        for path in candidates {
            if let data = try? Data(contentsOf: URL(fileURLWithPath: path)), !data.isEmpty { return data }
        }
        return nil
    }
}
#endif
