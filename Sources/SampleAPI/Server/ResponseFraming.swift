import NIOCore
import NIOHTTP1

/// Turns a route's response into the parts written on the wire.
enum ResponseFraming {
    static func parts(for response: Response, answering request: HTTPRequestHead, keepAlive: Bool) -> [HTTPServerResponsePart] {
        var headers = response.headers
        let body = response.body ?? ByteBuffer()
        let mayHaveBody = response.status.mayHaveResponseBody
        if mayHaveBody {
            // HEAD answers get the length the GET body would have had.
            headers.replaceOrAdd(name: "Content-Length", value: String(body.readableBytes))
        }
        if !keepAlive {
            headers.replaceOrAdd(name: "Connection", value: "close")
        } else if request.version.major == 1 && request.version.minor == 0 {
            headers.replaceOrAdd(name: "Connection", value: "keep-alive")
        }
        let sendsBody = mayHaveBody && request.method != .HEAD && body.readableBytes > 0
        if response.isCompressible {
            headers.add(name: "Vary", value: "Accept-Encoding")
            if sendsBody { headers.add(name: CompressionMarker.headerName, value: "1") }
        }
        let head = HTTPResponseHead(version: request.version, status: response.status, headers: headers)
        // One write of all parts: the compressor sees the whole body before a flush and can
        // replace Content-Length instead of falling back to chunked encoding.
        return sendsBody ? [.head(head), .body(.byteBuffer(body)), .end(nil)] : [.head(head), .end(nil)]
    }
}
