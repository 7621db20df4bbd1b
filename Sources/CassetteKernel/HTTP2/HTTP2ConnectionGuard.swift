import NIOCore
import NIOHTTP2

/// The last handler of an HTTP/2 connection: says in the request log why swift-nio-http2 refused
/// something, and closes the connection after a refused flood or a broken frame (the GOAWAY
/// that says why has gone out before the error reaches it). One connection's end never touches
/// the others: each has its own handlers and limits (`HTTP2Limits`).
final class HTTP2ConnectionGuard: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame

    private let log: ProxyLog
    private let shard: Int
    /// Set once the connection is being closed: later errors about it say nothing new.
    private var closing = false

    init(log: ProxyLog, shard: Int) {
        self.log = log
        self.shard = shard
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !closing else { return }
        let peer = context.channel.remoteAddress.map { " from \($0)" } ?? ""
        if let flood = Self.flood(error) {
            closing = true
            log.warn(log.labelled("HTTP/2 connection\(peer) refused: \(flood); sent GOAWAY and closed it, other connections go on"), shard: shard)
            context.close(promise: nil)
        } else if Self.endsConnection(error) {
            closing = true
            log.warn(log.labelled("HTTP/2 connection\(peer) closed: \(Self.describe(error)); sent GOAWAY"), shard: shard)
            context.close(promise: nil)
        } else if error is any NIOHTTP2Error, !(error is NIOHTTP2Errors.StreamClosed) {
            // A stream error: that stream got RST_STREAM, the connection goes on. Errors of the
            // layers below (a TLS peer closing without close_notify) end in `channelInactive`.
            log.warn(log.labelled("HTTP/2 stream\(peer) reset: \(Self.describe(error))"), shard: shard)
        }
    }

    /// The flood protection that tripped, in words; `nil` for any other error.
    static func flood(_ error: any Error) -> String? {
        switch error {
        case is NIOHTTP2Errors.ExcessiveRSTFrames:
            return "too many RST_STREAM frames (rapid reset flood)"
        case is NIOHTTP2Errors.ExcessiveControlFrames:
            return "too many PING/SETTINGS/PRIORITY frames (control frame flood)"
        case is NIOHTTP2Errors.ExcessiveEmptyDataFrames:
            return "too many empty DATA frames in a row (empty frame flood)"
        case is NIOHTTP2Errors.ExcessiveContinuationFrames:
            return "too many CONTINUATION frames in a row (CONTINUATION flood)"
        case is NIOHTTP2Errors.ExcessiveNumberOfGlitches:
            return "too many protocol glitches (streams reset or refused, frames on closed streams)"
        case is NIOHTTP2Errors.ExcessiveStreamErrors:
            return "too many stream errors"
        case is NIOHTTP2Errors.ExcessiveOutboundFrameBuffering:
            return "the client does not read the proxy's frames (outbound frames piled up)"
        case is NIOHTTP2Errors.ExcessivelyLargeHeaderBlock:
            return "a header block larger than the proxy's limit"
        default:
            return nil
        }
    }

    /// Connection errors (swift-nio-http2 sent a GOAWAY and reads nothing more of it); a stream
    /// error only resets its stream.
    private static func endsConnection(_ error: any Error) -> Bool {
        switch error {
        case is NIOHTTP2Errors.UnableToParseFrame, is NIOHTTP2Errors.BadClientMagic, is NIOHTTP2Errors.MissingPreface,
            is NIOHTTP2Errors.IOOnClosedConnection, is NIOHTTP2Errors.ReceivedBadSettings, is NIOHTTP2Errors.InvalidSetting,
            is NIOHTTP2Errors.StreamIDTooSmall, is NIOHTTP2Errors.CreatedStreamAfterGoaway:
            return true
        default:
            return false
        }
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case is NIOHTTP2Errors.UnableToParseFrame: return "bytes that are no HTTP/2 frame"
        case is NIOHTTP2Errors.MissingPreface: return "no SETTINGS frame after the preface"
        default: return String(describing: error)
        }
    }
}

@available(*, unavailable)
extension HTTP2ConnectionGuard: Sendable {}
