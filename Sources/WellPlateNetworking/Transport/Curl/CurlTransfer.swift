#if canImport(CCurl)
import CCurl
import Foundation
import HTTPTypes
import WellPlateCore

/// One request in flight on the multi loop.
///
/// `@unchecked Sendable` is safe because the object is shared by exactly two parties with a strict
/// hand-over: the submitting task owns it until `CurlMultiLoop.submit` puts it in the loop's
/// lock-protected queue; from then on only the loop's thread reads or writes the buffers and the
/// easy handle (libcurl calls the callbacks on that thread, inside `curl_multi_perform`), and the
/// loop resumes `continuation` exactly once. `phase` is only read or written while holding the
/// loop's state lock.
final class CurlTransfer: @unchecked Sendable {
    enum Phase {
        case created
        case submitted
        case cancelled
    }

    let request: TransportRequest
    /// The URL as it may appear in messages (secrets in the query replaced).
    let displayURL: String
    let limits: CurlTransport.Configuration
    package let tls: CurlTLS
    /// Set before `submit`: how the HTTP version is chosen (`H2CUpstreams`).
    var version = CurlHTTPVersion.negotiated
    /// Set before `submit`: a request target other than the URL's (`OPTIONS *`).
    var requestTarget: String?
    var continuation: CheckedContinuation<TransportResponse, Error>?
    /// Set for a streamed transfer (`CurlTransport.stream`): the body goes here, not to `body`.
    var sink: CurlStreamSink?
    /// The sink was handed something since the loop last woke its reader (loop thread only).
    var sinkHasNews = false
    var phase: Phase = .created

    // Loop-thread state.
    var easy: UnsafeMutableRawPointer?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var responseHeaders = HTTPFields()
    /// HTTP/2 and HTTP/3 send header names in lower case; see `HeaderNameCase`.
    private var headerNamesAreLowercase = false
    private var body = Data()
    private var bodyLimitExceeded = false
    private var streamedBytes = 0
    /// When the head was handed to `sink`.
    private(set) var headReceived: ContinuousClock.Instant?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var started = ContinuousClock.now

    init(request: TransportRequest, displayURL: String, limits: CurlTransport.Configuration, tls: CurlTLS) {
        self.request = request
        self.displayURL = displayURL
        self.limits = limits
        self.tls = tls
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        if let headerList { curl_slist_free_all(headerList) }
        errorBuffer.deallocate()
    }

    /// Sets every option of the transfer on a freshly reset easy handle.
    func configure(_ easy: UnsafeMutableRawPointer) throws(TransportError) {
        self.easy = easy
        started = .now
        let opaqueSelf = Unmanaged.passUnretained(self).toOpaque()

        try setString(CURLOPT_URL, request.url.absoluteString, "set the URL")
        try setString(CURLOPT_PROTOCOLS_STR, "http,https", "restrict protocols")
        try setString(CURLOPT_REDIR_PROTOCOLS_STR, "http,https", "restrict redirect protocols")
        try setLong(CURLOPT_NOSIGNAL, 1, "disable signals")
        // An empty proxy string makes libcurl ignore http_proxy and friends in the environment.
        try setString(CURLOPT_PROXY, limits.proxy ?? "", "set the proxy")
        if limits.decodeContent {
            try setString(CURLOPT_ACCEPT_ENCODING, "", "enable content decoding")
        }
        let timeout = request.timeout ?? limits.timeout
        if sink == nil {
            try setLong(CURLOPT_TIMEOUT_MS, Self.milliseconds(timeout), "set the timeout")
        } else {
            // A stream lasts as long as the upstream keeps sending (a Server-Sent Events feed may
            // never end), so its timeout bounds each silence instead of the whole transfer: before
            // the head as between two pieces. libcurl measures that in whole seconds.
            try setLong(CURLOPT_TIMEOUT_MS, 0, "lift the total timeout of a stream")
            try setLong(CURLOPT_LOW_SPEED_LIMIT, 1, "set the stream's silence limit")
            try setLong(CURLOPT_LOW_SPEED_TIME, Self.wholeSeconds(timeout), "set the stream's silence limit")
        }
        try setLong(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(min(timeout, limits.connectTimeout)), "set the connect timeout")
        try setLong(CURLOPT_FOLLOWLOCATION, request.followRedirects ? 1 : 0, "configure redirects")
        try setLong(CURLOPT_MAXREDIRS, 10, "limit redirects")
        try setLong(CURLOPT_TCP_KEEPALIVE, 1, "enable keep-alive")
        try setOffT(CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limits.maxResponseBodySize), "limit the response size")
        try CurlError.check(ccurl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer), "set the error buffer")
        try setLong(CURLOPT_HTTP_VERSION, httpVersionOption, "select the HTTP version")
        if let requestTarget { try setString(CURLOPT_REQUEST_TARGET, requestTarget, "set the request target") }
        if version == .priorKnowledge && !H2CUpstreams.priorKnowledgeReusesConnections {
            try setLong(CURLOPT_FRESH_CONNECT, 1, "open a connection of its own")
            try setLong(CURLOPT_FORBID_REUSE, 1, "close the connection after the transfer")
        }
        try tls.apply(to: easy, id: id)

        try configureMethodAndBody()
        try configureHeaders()

        try CurlError.check(ccurl_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, curlWriteCallback), "set the write callback")
        try CurlError.check(ccurl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, opaqueSelf), "set the write data")
        try CurlError.check(ccurl_easy_setopt_data_callback(easy, CURLOPT_HEADERFUNCTION, curlHeaderCallback), "set the header callback")
        try CurlError.check(ccurl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, opaqueSelf), "set the header data")
    }

    /// HTTP/2 when an HTTPS server offers it in ALPN, or with prior knowledge when asked. A plain
    /// http:// request says HTTP/1.1 outright: with `CURL_HTTP_VERSION_2TLS` libcurl would let it
    /// reuse an h2c connection, and an HTTP/1.1 client's request would reach the upstream over HTTP/2.
    private var httpVersionOption: Int {
        if version == .priorKnowledge { return Int(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE) }
        return request.url.scheme?.lowercased() == "https" ? Int(CURL_HTTP_VERSION_2TLS) : Int(CURL_HTTP_VERSION_1_1)
    }

    private func configureMethodAndBody() throws(TransportError) {
        let body = request.body
        switch request.method {
        case .get where body == nil:
            try setLong(CURLOPT_HTTPGET, 1, "select GET")
        case .head:
            try setLong(CURLOPT_NOBODY, 1, "select HEAD")
        case .post:
            try setBody(body ?? Data())
        default:
            try setString(CURLOPT_CUSTOMREQUEST, request.method.rawValue, "select \(request.method.rawValue)")
            if let body {
                try setBody(body)
            } else if request.method == .put || request.method == .patch {
                // Without a body libcurl would send no Content-Length, which some servers reject.
                try setBody(Data())
            }
        }
    }

    private func setBody(_ body: Data) throws(TransportError) {
        guard let easy else { return }
        try setOffT(CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count), "set the body size")
        let code = body.withUnsafeBytes { raw -> CURLcode in
            // COPYPOSTFIELDS copies the bytes, so the buffer need not outlive this call.
            let pointer = UnsafeMutableRawPointer(mutating: raw.baseAddress ?? UnsafeRawPointer(("" as StaticString).utf8Start))
            return ccurl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, pointer)
        }
        try CurlError.check(code, "set the request body")
    }

    private func configureHeaders() throws(TransportError) {
        var list: UnsafeMutablePointer<curl_slist>?
        var hasContentType = false
        for field in request.headerFields {
            let name = field.name.canonicalName
            if Self.headersLibcurlOwns.contains(name) { continue }
            if name == "accept-encoding" && limits.decodeContent { continue }
            if name == "content-type" { hasContentType = true }
            // "Name;" is libcurl's spelling of a header with an empty value. The value's bytes, not
            // its `String`: one that is not UTF-8 (latin-1) goes out byte for byte.
            var line = Array(field.name.rawName.utf8)
            field.withUnsafeBytesOfValue { value in
                if value.isEmpty {
                    line.append(UInt8(ascii: ";"))
                } else {
                    line += ": ".utf8
                    line += value
                }
            }
            line.append(0)
            list = line.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { curl_slist_append(list, $0.baseAddress) } }
        }
        // libcurl would otherwise add a form content type to bodies, and Expect: 100-continue,
        // which costs a round trip on every large upload.
        if request.body != nil && !hasContentType {
            list = curl_slist_append(list, "Content-Type:")
        }
        list = curl_slist_append(list, "Expect:")
        headerList = list
        try CurlError.check(ccurl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, list), "set the request headers")
    }

    /// Header fields the transport computes itself; passing a caller's value would corrupt framing.
    private static let headersLibcurlOwns = HTTPFraming.hopByHopHeaders.union(HTTPFraming.bodyLengthHeaders).union(["expect"])

    // MARK: Callbacks (loop thread)

    /// The bytes taken, `0` to abort, or `ccurl_write_pause()` while a streamed reader is behind.
    fileprivate func appendBody(_ buffer: UnsafeRawBufferPointer) -> Int {
        let received = (sink == nil ? body.count : streamedBytes) + buffer.count
        if received > limits.maxResponseBodySize {
            bodyLimitExceeded = true
            return 0
        }
        guard let sink else {
            body.append(contentsOf: buffer)
            return buffer.count
        }
        deliverHeadIfNeeded(to: sink)
        guard sink.offer(buffer) else { return ccurl_write_pause() }
        sinkHasNews = true
        streamedBytes = received
        return buffer.count
    }

    /// Hands the head to a streamed reader once: at the end of the final header block, or with
    /// the first body bytes should that end have gone unnoticed.
    private func deliverHeadIfNeeded(to sink: CurlStreamSink) {
        guard headReceived == nil else { return }
        headReceived = .now
        sink.deliverHead(streamedHead(status: responseCode))
        sinkHasNews = true
    }

    /// The blank line after a header block: the final head, unless an interim 1xx response or a
    /// redirect libcurl is about to follow.
    private func headerBlockEnded() {
        guard let sink, headReceived == nil else { return }
        let status = responseCode
        if (100..<200).contains(status) { return }
        if request.followRedirects, (300..<400).contains(status), responseHeaders[.location] != nil { return }
        deliverHeadIfNeeded(to: sink)
    }

    /// Where the first `name` field stands among `fields` once the fields named in `removing`
    /// are gone: the position a recording gives it back at.
    static func position(of name: HTTPField.Name, in fields: HTTPFields, removing: Set<HTTPField.Name>) -> Int? {
        var kept = 0
        for field in fields {
            if field.name == name { return kept }
            if !removing.contains(field.name) { kept += 1 }
        }
        return nil
    }

    private var responseCode: Int {
        var status = 0
        _ = ccurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        return status
    }

    /// The head a streamed reader gets: a body libcurl decodes loses its encoding and length.
    private func streamedHead(status: Int) -> TransportResponseHead {
        var headers = responseHeaders
        var decodedEncoding: String?
        var position: Int?
        let wireLength = headers[.contentLength].flatMap { Int($0) }
        if limits.decodeContent, request.method != .head, let encoding = headers[.contentEncoding], Self.isDecodedByLibcurl(encoding) {
            decodedEncoding = encoding
            position = Self.position(of: .contentEncoding, in: headers, removing: [.contentEncoding, .contentLength])
            headers[.contentEncoding] = nil
            headers[.contentLength] = nil
        }
        var head = TransportResponseHead(statusCode: status, headerFields: headers, decodedContentEncoding: decodedEncoding, wireContentLength: wireLength)
        head.decodedContentEncodingPosition = position
        return head
    }

    /// One line from libcurl's header callback, as bytes: a value that is not UTF-8 (latin-1 is
    /// legal in HTTP/1.1) is kept byte for byte.
    fileprivate func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        if bytes.starts(with: "HTTP/".utf8) {
            // A new status line: an interim 1xx response or a followed redirect came first.
            responseHeaders = HTTPFields()
            headerNamesAreLowercase = !bytes.starts(with: "HTTP/1".utf8)
            return
        }
        var line = bytes[...]
        while let last = line.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: "\n") { line = line.dropLast() }
        guard let first = line.first else {
            headerBlockEnded()
            return
        }
        if first == UInt8(ascii: " ") || first == UInt8(ascii: "\t"), let last = responseHeaders.indices.last {
            // Obsolete line folding (RFC 9112 §5.2): the line continues the previous value.
            var value = responseHeaders[last].withUnsafeBytesOfValue { Array($0) }
            value.append(UInt8(ascii: " "))
            value += Self.trimmed(line)
            responseHeaders[last] = HTTPField(name: responseHeaders[last].name, value: value)
            return
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return }
        var name = String(decoding: line[..<colon], as: UTF8.self)
        if headerNamesAreLowercase { name = HeaderNameCase.http1Spelling(of: name) }
        guard let fieldName = HTTPField.Name(name) else { return }
        responseHeaders.append(HTTPField(name: fieldName, value: Self.trimmed(line[line.index(after: colon)...])))
    }

    private static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
        var bytes = bytes
        while let first = bytes.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { bytes = bytes.dropLast() }
        return bytes
    }

    // MARK: Completion (loop thread)

    /// Builds the outcome once libcurl reports the transfer done.
    func outcome(for code: CURLcode) -> Result<TransportResponse, Error> {
        let duration = ContinuousClock.now - started
        guard code == CURLE_OK else {
            if bodyLimitExceeded || code == CURLE_FILESIZE_EXCEEDED {
                return .failure(
                    TransportError(
                        .responseTooLarge,
                        "\(request.method.rawValue) \(displayURL): the response is larger than the limit of \(limits.maxResponseBodySize) bytes",
                        curlCode: Int(code.rawValue)))
            }
            let detail = String(cString: errorBuffer)
            var error = CurlError.transportError(code, detail: detail, context: "\(request.method.rawValue) \(displayURL)")
            if error.tlsProblem == nil, error.kind == .connectionLost || error.kind == .other, tls.clientCertificateWasRequested(id: id) {
                error.kind = .tls
                error.tlsProblem = .clientCertificateRejected
                error.message += " (the server asked for a client certificate)"
            }
            return .failure(error)
        }
        let status = responseCode
        if let sink {
            deliverHeadIfNeeded(to: sink)
            return .success(TransportResponse(statusCode: status, headerFields: responseHeaders, duration: duration))
        }
        var headers = responseHeaders
        var decodedEncoding: String?
        var position: Int?
        if limits.decodeContent, request.method != .head, let encoding = headers[.contentEncoding],
            Self.isDecodedByLibcurl(encoding)
        {
            decodedEncoding = encoding
            position = Self.position(of: .contentEncoding, in: headers, removing: [.contentEncoding])
            headers[.contentEncoding] = nil
            if headers[.contentLength] != nil {
                headers[.contentLength] = String(body.count)
            }
        }
        var response = TransportResponse(statusCode: status, headerFields: headers, body: body, decodedContentEncoding: decodedEncoding, duration: duration)
        response.decodedContentEncodingPosition = position
        return .success(response)
    }

    private static func isDecodedByLibcurl(_ encoding: String) -> Bool {
        let known: Set<String> = ["gzip", "x-gzip", "deflate", "br", "zstd", "identity"]
        let codings = encoding.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return !codings.isEmpty && codings.allSatisfy(known.contains) && codings != ["identity"]
    }

    /// Names this transfer to C callbacks that must not hold a pointer to it.
    private var id: UInt { UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()) }

    // MARK: Option helpers

    private func setLong(_ option: CURLoption, _ value: Int, _ what: String) throws(TransportError) {
        try CurlError.check(ccurl_easy_setopt_long(easy, option, value), what)
    }

    private func setOffT(_ option: CURLoption, _ value: curl_off_t, _ what: String) throws(TransportError) {
        try CurlError.check(ccurl_easy_setopt_off_t(easy, option, value), what)
    }

    private func setString(_ option: CURLoption, _ value: String, _ what: String) throws(TransportError) {
        try CurlError.check(ccurl_easy_setopt_string(easy, option, value), what)
    }

    /// Rounded up, at least 1: libcurl reads 0 as "no limit".
    private static func wholeSeconds(_ duration: Duration) -> Int {
        let milliseconds = duration.clampedMilliseconds
        return Int(max(1, milliseconds / 1000 + (milliseconds % 1000 == 0 ? 0 : 1)))
    }

    /// At least 1: libcurl reads 0 as "no timeout".
    private static func milliseconds(_ duration: Duration) -> Int {
        Int(max(1, duration.clampedMilliseconds))
    }
}

private func curlWriteCallback(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userdata: UnsafeMutableRawPointer?) -> Int {
    guard let userdata else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
    let length = size * count
    guard length > 0, let buffer else { return length }
    // Returning fewer bytes than given makes libcurl abort the transfer with CURLE_WRITE_ERROR.
    return transfer.appendBody(UnsafeRawBufferPointer(start: buffer, count: length))
}

private func curlHeaderCallback(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userdata: UnsafeMutableRawPointer?) -> Int {
    guard let userdata else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
    let length = size * count
    guard length > 0, let buffer else { return length }
    transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: buffer, count: length))
    return length
}
#endif
