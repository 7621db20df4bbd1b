import NIOCore
import NIOHTTP1
import NIOHTTPCompression

/// Makes `HTTPResponseCompressor` choose gzip whenever the client accepts it.
///
/// The compressor picks deflate when gzip and deflate have equal weight, which is what libcurl and
/// most clients send (`deflate, gzip, br, zstd`). The API promises gzip, so `PreferGzipHandler`
/// shows the compressor a request that accepts only gzip, and `RestoreAcceptEncodingHandler`
/// (after the compressor) puts the received headers back, so routes such as `/api/echo` see the
/// request exactly as sent. The compressor forwards each head synchronously, so one slot suffices.
final class AcceptEncodingStash {
    var receivedHeaders: HTTPHeaders?
}

final class PreferGzipHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private let stash: AcceptEncodingStash

    init(stash: AcceptEncodingStash) {
        self.stash = stash
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = Self.unwrapInboundIn(data), Self.acceptsGzip(head.headers) else {
            context.fireChannelRead(data)
            return
        }
        stash.receivedHeaders = head.headers
        head.headers = HTTPHeaders(
            head.headers.map { field in
                field.name.lowercased() == "accept-encoding" ? (field.name, "gzip") : (field.name, field.value)
            }
        )
        context.fireChannelRead(Self.wrapInboundOut(.head(head)))
    }

    /// True when gzip (or `*`, absent an explicit gzip entry) has a non-zero quality.
    static func acceptsGzip(_ headers: HTTPHeaders) -> Bool {
        var gzip: Bool?
        var wildcard = false
        for entry in headers[canonicalForm: "accept-encoding"] {
            let parts = entry.split(separator: ";", maxSplits: 1)
            let coding = parts[0].trimmingWhitespace.lowercased()
            let acceptable = parts.count < 2 || quality(parts[1]) > 0
            switch coding {
            case "gzip", "x-gzip": gzip = acceptable
            case "*": wildcard = acceptable
            default: continue
            }
        }
        return gzip ?? wildcard
    }

    private static func quality(_ parameter: Substring) -> Double {
        let pair = parameter.split(separator: "=", maxSplits: 1)
        guard pair.count == 2, pair[0].trimmingWhitespace.lowercased() == "q" else { return 1 }
        return Double(pair[1].trimmingWhitespace) ?? 0
    }
}

@available(*, unavailable)
extension PreferGzipHandler: Sendable {}

final class RestoreAcceptEncodingHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private let stash: AcceptEncodingStash

    init(stash: AcceptEncodingStash) {
        self.stash = stash
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = Self.unwrapInboundIn(data), let received = stash.receivedHeaders else {
            context.fireChannelRead(data)
            return
        }
        stash.receivedHeaders = nil
        head.headers = received
        context.fireChannelRead(Self.wrapInboundOut(.head(head)))
    }
}

@available(*, unavailable)
extension RestoreAcceptEncodingHandler: Sendable {}

/// Limits compression to the routes marked compressible.
///
/// The connection tags such responses with a private header; the compressor's predicate removes
/// the tag before the head is written, so it never reaches the wire.
enum CompressionMarker {
    static let headerName = "x-sample-api-compress"

    static func predicate(_ head: inout HTTPResponseHead, _ isCompressionSupported: Bool) -> HTTPResponseCompressor.CompressionIntent {
        let marked = head.headers.contains(name: headerName)
        head.headers.remove(name: headerName)
        return marked ? .compressIfPossible : .doNotCompress
    }
}
