import CassetteKernel
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import WellPlateCore
import WellPlateNetworking

/// A request the proxy refuses before it reaches the cassette.
package struct ProxyRequestError: Error {
    package let status: Int
    package let code: String
    package let message: String
    /// The methods the endpoint takes, for `Allow` on a 405.
    package var allow: [String] = []

    /// The proxy's JSON error answer for it.
    package var answer: ProxyAnswer {
        ControlRefusal(status: status, code: code, message: message, allow: allow).answer(source: .error)
    }
}

/// Maps an incoming request onto the upstream: the path and query are appended to the upstream
/// base URL, hop-by-hop headers are dropped (and a forward proxy's credentials), and `Host` is
/// left to the transport, which sets it from the upstream URL.
package struct ProxyRequestBuilder: Sendable {
    /// The upstream base URL without a trailing slash, such as `http://127.0.0.1:8081` or
    /// `https://api.example.com/v2`. Replay-only proxies use the cassette's recorded upstream.
    package let upstreamBase: String
    /// The base URL's path (`/v2`, or empty), which prefixes every forwarded target.
    package let basePath: String
    /// `scheme://host[:port]` of the upstream base URL.
    package let origin: String
    /// Whether keys are made of the whole URL (a multi-host cassette) rather than its target.
    package let keysIncludeOrigin: Bool
    /// A forward proxy's own listener: a `/path` target names no host to go to.
    package var refusesOriginForm = false
    /// A forward proxy (`--forward`) is the addressee of `Proxy-Authorization` and drops it; a
    /// reverse proxy passes it on to the upstream, whose field it is.
    package var consumesProxyCredentials = false

    package init(upstream: URL?, keysIncludeOrigin: Bool = false) {
        var base = upstream?.absoluteString ?? "http://upstream.invalid"
        while base.hasSuffix("/") { base.removeLast() }
        upstreamBase = base
        var path = upstream.map { $0.path(percentEncoded: true) } ?? ""
        while path.hasSuffix("/") { path.removeLast() }
        basePath = path
        origin = base.hasSuffix(path) ? String(base.dropLast(path.count)) : base
        self.keysIncludeOrigin = keysIncludeOrigin
    }

    /// The target as the upstream sees it (`/v2/users?limit=1`), which is what keys are made of;
    /// with its origin in front when keys carry it (`https://api.example.com/v2/users?limit=1`).
    package func upstreamTarget(_ uri: String) throws(ProxyRequestError) -> String {
        try refuseOriginForm(uri)
        return keysIncludeOrigin ? origin + basePath + (try Self.originForm(uri)) : basePath + (try Self.originForm(uri))
    }

    /// The method, or a 501 for one the proxy does not handle.
    package static func method(_ head: HTTPRequestHead) throws(ProxyRequestError) -> WellPlateCore.HTTPMethod {
        // A switch, not the method's name: every replayed request asks.
        switch head.method {
        case .GET: return .get
        case .POST: return .post
        case .PUT: return .put
        case .PATCH: return .patch
        case .DELETE: return .delete
        case .HEAD: return .head
        case .OPTIONS: return .options
        default:
            throw ProxyRequestError(
                status: 501, code: "method_not_supported",
                message: "the proxy does not support \(head.method.rawValue); it handles GET, POST, PUT, PATCH, DELETE, HEAD and OPTIONS")
        }
    }

    package func transportRequest(head: HTTPRequestHead, body: ByteBuffer?) throws(ProxyRequestError) -> TransportRequest {
        try refuseOriginForm(head.uri)
        let method = try Self.method(head)
        let target = try Self.originForm(head.uri)
        guard let url = URL(string: upstreamBase + target) else {
            throw ProxyRequestError(
                status: 400, code: "bad_request_target",
                message: "the request target \(Self.shortened(head.uri)) is not a valid URL path; percent-encode spaces and special characters")
        }
        var fields = HTTPFields()
        fields.reserveCapacity(head.headers.count)
        let connectionTokens = Set(head.headers[canonicalForm: "connection"].map { $0.lowercased() })
        for (name, value) in head.headers {
            let lowered = name.lowercased()
            if HTTPFraming.unforwardedRequestHeaders.contains(lowered) || connectionTokens.contains(lowered) { continue }
            if consumesProxyCredentials && HTTPFraming.proxyCredentialHeaders.contains(lowered) { continue }
            // Which session a request belongs to is the proxy's business: never forwarded or recorded.
            if lowered == SessionHeader.lowercasedName { continue }
            guard let fieldName = HTTPField.Name(name) else { continue }
            fields.append(RawHeaderBytes.field(name: fieldName, value: value))
        }
        var bodyData: Data?
        if let body, body.readableBytes > 0 {
            bodyData = Data(body.readableBytesView)
        }
        var request = TransportRequest(method: method, url: url, headerFields: fields, body: bodyData)
        // A client that spoke HTTP/2 is forwarded over HTTP/2 where the upstream speaks it, h2c included.
        request.prefersHTTP2 = head.version.major == 2
        request.httpVersion = RecordedHTTPVersion(major: head.version.major, minor: head.version.minor)
        return request
    }

    private func refuseOriginForm(_ uri: String) throws(ProxyRequestError) {
        guard refusesOriginForm, uri.hasPrefix("/") else { return }
        throw ProxyRequestError(
            status: 400, code: "absolute_form_required",
            message:
                "this is a forward proxy (--forward): set it as the client's HTTP and HTTPS proxy (HTTPS_PROXY, HTTP_PROXY, curl -x), which then asks for whole URLs; \(Self.shortened(uri)) names no host"
        )
    }

    /// `/path?query` from an origin-form or absolute-form target (RFC 9112 §3.2).
    package static func originForm(_ target: String) throws(ProxyRequestError) -> String {
        if target.hasPrefix("/") { return target }
        if let scheme = target.range(of: "://") {
            let afterAuthority = target[scheme.upperBound...].firstIndex { $0 == "/" || $0 == "?" }
            guard let afterAuthority else { return "/" }
            let rest = String(target[afterAuthority...])
            return rest.hasPrefix("?") ? "/" + rest : rest
        }
        throw ProxyRequestError(
            status: 400, code: "bad_request_target", message: "the request target \(shortened(target)) is neither a path nor an absolute URL")
    }

    private static func shortened(_ text: String) -> String {
        text.count > 80 ? "\"\(text.prefix(80))…\"" : "\"\(text)\""
    }
}
