#if canImport(CCurl)
import CCurl
import Foundation
import WellPlateCore

/// Turns libcurl's result codes into `TransportError`s; nothing else in the package looks at a
/// raw `CURLcode` or `CURLMcode`.
enum CurlError {
    static func check(_ code: CURLcode, _ what: @autoclosure () -> String) throws(TransportError) {
        guard code != CURLE_OK else { return }
        throw transportError(code, detail: nil, context: what())
    }

    static func check(_ code: CURLMcode, _ what: @autoclosure () -> String) throws(TransportError) {
        guard code != CURLM_OK else { return }
        let text = String(cString: curl_multi_strerror(code))
        throw TransportError(.other, "libcurl multi handle failed to \(what()): \(text)", curlCode: Int(code.rawValue))
    }

    /// The kind a transfer result belongs to; `detail` is libcurl's error buffer when it has one.
    static func transportError(_ code: CURLcode, detail: String?, context: String) -> TransportError {
        let problem = tlsProblem(code, detail: detail ?? "")
        let kind = problem == nil ? kind(of: code) : .tls
        let summary = String(cString: curl_easy_strerror(code))
        var message = "\(context): \(summary)"
        if let detail, !detail.isEmpty, detail != summary {
            message += " (\(detail))"
        }
        return TransportError(kind, message, curlCode: Int(code.rawValue), tlsProblem: problem)
    }

    /// Which part of TLS failed. A server that wants a client certificate says so with an alert
    /// that OpenSSL reports on the first read after the handshake (TLS 1.3) or during it (1.2),
    /// so receive errors are looked at too.
    static func tlsProblem(_ code: CURLcode, detail: String) -> TLSProblem? {
        let text = detail.lowercased()
        let clientCertificateAlerts = [
            "alert certificate required", "alert bad certificate", "alert unknown ca", "alert handshake failure", "peer did not return a certificate",
        ]
        switch code {
        case CURLE_PEER_FAILED_VERIFICATION:
            return text.contains("subject name") || text.contains("host name") || text.contains("hostname") ? .hostNameMismatch : .untrustedCertificate
        case CURLE_SSL_CACERT_BADFILE:
            return .caCertificatesUnusable
        case CURLE_SSL_CERTPROBLEM:
            return .clientCertificateUnusable
        case CURLE_SSL_CLIENTCERT:
            return .clientCertificateRejected
        case CURLE_SSL_CONNECT_ERROR, CURLE_RECV_ERROR, CURLE_SEND_ERROR:
            if clientCertificateAlerts.contains(where: text.contains) { return .clientCertificateRejected }
            return code == CURLE_SSL_CONNECT_ERROR ? .handshakeFailed : nil
        default:
            return kind(of: code) == .tls ? .handshakeFailed : nil
        }
    }

    static func kind(of code: CURLcode) -> TransportError.Kind {
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout
        case CURLE_COULDNT_CONNECT, CURLE_PROXY:
            return .cannotConnect
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .dnsFailure
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ENGINE_NOTFOUND,
            CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_USE_SSL_FAILED,
            CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR,
            CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT:
            return .tls
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE,
            CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_HTTP3, CURLE_QUIC_CONNECT_ERROR,
            CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_CONTENT_ENCODING:
            return .connectionLost
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            return .invalidURL
        case CURLE_TOO_MANY_REDIRECTS:
            return .tooManyRedirects
        case CURLE_FILESIZE_EXCEEDED:
            return .responseTooLarge
        default:
            return .other
        }
    }
}
#endif
