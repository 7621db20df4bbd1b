#if canImport(CCurl)
import CCurl
import Foundation
import Synchronization
import WellPlateCore

/// The HTTP version a transfer asks libcurl for.
enum CurlHTTPVersion: Equatable {
    /// HTTP/1.1 for `http://`, HTTP/2 where an `https://` server offers it in ALPN.
    case negotiated
    /// HTTP/2 straight away on a plain `http://` connection (h2c with prior knowledge).
    case priorKnowledge
}

/// What the transport has learned about plain `http://` origins that a request preferring HTTP/2
/// was sent to (`TransportRequest.prefersHTTP2`), so that only the first request to an origin
/// that speaks HTTP/1.1 alone pays a failed attempt. In memory only: an upstream may change
/// between runs.
///
/// How a server that does not speak HTTP/2 shows: libcurl 7.88's prior knowledge sends the
/// preface, its SETTINGS and the request's HEADERS, and an HTTP/1.1 server answers the preface
/// (`PRI * HTTP/2.0`) with a 400 or 505 in text and closes; nghttp2 reads that text as a frame far
/// over the size limit and ends the session, and libcurl reports `CURLE_GOT_NOTHING` ("Empty reply
/// from server"), or `CURLE_SEND_ERROR` when the close came while it was still writing. An
/// HTTP/2 server that sends SETTINGS and then nothing gives `CURLE_PARTIAL_FILE` or
/// `CURLE_RECV_ERROR` instead (seen against nginx, Python's http.server and a socket that sends
/// SETTINGS and closes; docs/proxy.md). The HTTP/1.1 server never saw the request as one (its
/// method line was the preface, the request an HPACK block), but neither code proves that the
/// server was not an HTTP/2 one that failed afterwards, so a request is sent again over HTTP/1.1
/// only when its method is idempotent (RFC 9110 §9.2.2); the first POST or PATCH to an origin
/// not yet known is preceded by `OPTIONS *` (side-effect free by definition) to learn it, and a
/// non-idempotent request that fails this way is never sent again.
final class H2CUpstreams: Sendable {
    enum Support: Equatable {
        case http2
        case http1Only
    }

    private let known = Mutex<[String: Support]>([:])
    private let notice: (@Sendable (String) -> Void)?

    init(notice: (@Sendable (String) -> Void)?) {
        self.notice = notice
    }

    /// `scheme://host:port` of a plain `http://` URL a request preferring HTTP/2 goes to without
    /// a proxy in between; `nil` when prior knowledge does not apply.
    static func origin(of request: TransportRequest, proxy: String?) -> String? {
        guard request.prefersHTTP2, proxy == nil || proxy == "", request.url.scheme?.lowercased() == "http", let host = request.url.host else { return nil }
        return "http://\(host.lowercased()):\(request.url.port ?? 80)"
    }

    func support(of origin: String) -> Support? {
        known.withLock { $0[origin] }
    }

    /// Remembers `support`; says once (per change) that an origin speaks HTTP/1.1 only.
    func learned(_ support: Support, for origin: String) {
        let previous = known.withLock { known in
            defer { known[origin] = support }
            return known[origin]
        }
        if support == .http1Only, previous != .http1Only {
            notice?("upstream \(origin) does not speak HTTP/2 with prior knowledge (h2c); requests from HTTP/2 clients go to it over HTTP/1.1")
        }
    }

    /// Forgets `origin`, so that the next request tries prior knowledge again: one known to speak
    /// HTTP/1.1 only failed over HTTP/1.1 as an h2c-only server would (`isNotHTTP1Answer`).
    func forget(_ origin: String) {
        _ = known.withLock { $0.removeValue(forKey: origin) }
    }

    /// Whether `error` is how libcurl reports an HTTP/1.1 server answering prior knowledge (or an
    /// h2c-only one answering HTTP/1.1): nothing it could read as a response, the connection gone
    /// before the request was all sent (`CURLE_SEND_ERROR`: Python's http.server answers the
    /// preface and closes while libcurl still writes) or after (`CURLE_GOT_NOTHING`).
    static func isWrongProtocolAnswer(_ error: any Error) -> Bool {
        guard let code = (error as? TransportError)?.curlCode else { return false }
        return code == Int(CURLE_GOT_NOTHING.rawValue) || code == Int(CURLE_SEND_ERROR.rawValue)
    }

    /// Whether `error`, from a request sent over HTTP/1.1, is how libcurl reports a server that
    /// does not speak HTTP/1.1 (any more): one that speaks h2c only sends its SETTINGS frame
    /// first and closes, which libcurl 7.88 reads as an HTTP/0.9 answer it refuses
    /// (`CURLE_UNSUPPORTED_PROTOCOL`, "Received HTTP/0.9 when not allowed"; seen with nghttpd and
    /// grpcio's server); `CURLE_WEIRD_SERVER_REPLY` is libcurl's code for a status line it cannot
    /// read; and one that closes without a word gives the codes of `isWrongProtocolAnswer`.
    static func isNotHTTP1Answer(_ error: any Error) -> Bool {
        guard let code = (error as? TransportError)?.curlCode else { return false }
        return isWrongProtocolAnswer(error) || code == Int(CURLE_UNSUPPORTED_PROTOCOL.rawValue) || code == Int(CURLE_WEIRD_SERVER_REPLY.rawValue)
    }

    /// Whether `error`, from a request sent over HTTP/1.1, proves that the server speaks HTTP/2
    /// and did not process the request: libcurl 7.88 reads an h2c server's SETTINGS frame (its
    /// first bytes, `00 00 xx 04`, no status line) as an HTTP/0.9 answer and refuses it. An HTTP/2
    /// server reads an HTTP/1.1 request as a broken connection preface, which RFC 9113 §3.4 makes
    /// a connection error before any stream exists, so the request is safe to send again, POST
    /// included. A server that closes without a word (`isWrongProtocolAnswer`) proves neither.
    static func isHTTP2Answer(_ error: any Error) -> Bool {
        guard let error = error as? TransportError, error.curlCode == Int(CURLE_UNSUPPORTED_PROTOCOL.rawValue) else { return false }
        return error.message.contains("HTTP/0.9")
    }

    /// libcurl before 8.0.0 fails every request after the first on a reused prior-knowledge
    /// connection with `CURLE_HTTP2` ("Error in the HTTP2 framing layer"; curl#10634, fixed by
    /// curl#10643, and seen here with Debian's 7.88.1 against nginx and hypercorn): there, each
    /// such transfer gets a connection of its own.
    static let priorKnowledgeReusesConnections: Bool = {
        guard let info = curl_version_info(CURLVERSION_FIRST) else { return false }
        return info.pointee.version_num >= 0x08_00_00
    }()
}
#endif
