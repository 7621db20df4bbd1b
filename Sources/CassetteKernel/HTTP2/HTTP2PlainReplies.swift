import NIOCore
import NIOHPACK
import NIOHTTP1
import NIOHTTP2

/// The replay hot path over HTTP/2, taken at the connection: a request that opens a stream with
/// one HEADERS frame (`END_STREAM`, no body) and that the listener's responder calls plain
/// (`ConnectionResponder.isPlain`) is answered here, as HEADERS and one DATA frame on the
/// connection, without a stream channel. Through a stream channel the same answer costs a
/// channel and its pipeline, the HTTP/1 codec's conversions both ways and their state machines:
/// about three times the server CPU of the HTTP/1.1 request (BENCHMARKS.md, issue 46).
///
/// Sits between `NIOHTTP2Handler` and `HTTP2StreamMultiplexer`. Everything it does not answer
/// goes on to the multiplexer unchanged: requests with a body, streams a module takes
/// (`HTTP2StreamSwitches`), requests that are not plain, and those the responder declines. A
/// module may answer its calls here too (gRPC's unary replays, `Switch.answersWhole`): their
/// frames are held until the request is whole, then answered, or passed on in order. The
/// responder may have looked at a request with side effects without answering it (a replay pick
/// that has no prepared reply, or a miss): then what it made is kept here by stream ID until the
/// stream's `HTTPConnectionHandler` takes it (`takeHandoff(for:)`) and answers with it, so a
/// request is never picked twice. The frames the client still sends on a stream answered here
/// (WINDOW_UPDATE, RST_STREAM, PRIORITY) stop here: the multiplexer, which never saw the
/// stream, would report each as a frame for an unknown stream. The events about it
/// (`NIOHTTP2StreamCreatedEvent`, `StreamClosedEvent`) go on, so `HTTP2IdleShutdown` and the
/// graceful shutdown count it as they count any stream; the multiplexer ignores them.
package final class HTTP2PlainReplies: ChannelInboundHandler {
    package typealias InboundIn = HTTP2Frame
    package typealias InboundOut = HTTP2Frame
    package typealias OutboundOut = HTTP2Frame

    private let responder: any ConnectionResponder
    private let streamSwitches: HTTP2StreamSwitches
    private let logShard: Int
    private let heldBodyLimit: Int
    /// Streams answered here that are not closed yet.
    private(set) var owned = Set<HTTP2StreamID>()
    /// The highest stream ID a HEADERS frame opened: one above it opens a new stream.
    private var lastStreamID = HTTP2StreamID.rootStream
    /// What the responder made for a request it did not answer here, until its stream takes it.
    private var handoffs: [HTTP2StreamID: any Sendable] = [:]
    /// Calls a module answers whole (`HTTP2StreamSwitches.Switch.answersWhole`) whose request
    /// is still coming.
    private var held: [HTTP2StreamID: HTTP2HeldCall] = [:]
    /// Answers were written during this read: flushed together when it completes.
    private var flushPending = false

    /// `heldBodyLimit`: the most body bytes of a call held for its module (`HTTP2HeldCall`).
    package init(
        responder: any ConnectionResponder, streamSwitches: HTTP2StreamSwitches = .none, logShard: Int = 0, heldBodyLimit: Int = HTTP2HeldCall.bodyLimit
    ) {
        self.heldBodyLimit = heldBodyLimit
        self.responder = responder
        self.streamSwitches = streamSwitches
        self.logShard = logShard
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = Self.unwrapInboundIn(data)
        let streamID = frame.streamID
        if case .headers(let headers) = frame.payload, streamID > lastStreamID {
            lastStreamID = streamID
            if let taker = streamSwitches.isEmpty ? nil : streamSwitches.taker(of: headers.headers) {
                if let answerer = taker.answersWhole?(headers.headers, logShard) {
                    let call = HTTP2HeldCall(frames: [frame], answerer: answerer)
                    if headers.endStream { complete(call, on: streamID, context: context) } else { held[streamID] = call }
                    return
                }
            } else if headers.endStream, answered(headers.headers, on: streamID, context: context) {
                return
            }
        } else if !held.isEmpty, let call = held.removeValue(forKey: streamID) {
            return hold(frame, with: call, context: context)
        } else if !owned.isEmpty, owned.contains(streamID) {
            return
        }
        context.fireChannelRead(data)
    }

    /// The next frame of a call held for its module: held too while the request is coming, the
    /// call answered when it is whole, or everything passed on in order when the call turns out
    /// not to be one to hold (a body over the limit, a frame a whole request has no place for).
    private func hold(_ frame: HTTP2Frame, with call: HTTP2HeldCall, context: ChannelHandlerContext) {
        var call = call
        switch frame.payload {
        case .data(let data):
            guard case .byteBuffer(let bytes) = data.data, call.append(frame, body: bytes, limit: heldBodyLimit) else {
                return release(call, then: frame, context: context)
            }
            if data.endStream { return complete(call, on: frame.streamID, context: context) }
        case .headers(let trailers) where trailers.endStream:
            call.frames.append(frame)
            return complete(call, on: frame.streamID, context: context)
        case .rstStream:
            // The client gave up: what was held goes, and the stream's last frames and events
            // stop here as for a stream answered here (the multiplexer never saw it).
            owned.insert(frame.streamID)
            return
        case .windowUpdate, .priority:
            // `NIOHTTP2Handler` has applied them already: the answer written here respects the
            // window, and the stream path gets them in order if the call goes there. grpcio's
            // client sends a WINDOW_UPDATE on every call's stream after its HEADERS: letting it
            // end the holding kept every grpcio unary call off this path.
            call.frames.append(frame)
        default:
            return release(call, then: frame, context: context)
        }
        held[frame.streamID] = call
    }

    /// The held call's request is whole: its module's answer, or the held frames to the stream path.
    private func complete(_ call: HTTP2HeldCall, on streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        // Owned before the answer is written, as in `answered`.
        owned.insert(streamID)
        guard let answer = call.answerer(call.body ?? ByteBuffer()) else {
            owned.remove(streamID)
            return release(call, then: nil, context: context)
        }
        for payload in answer { context.write(Self.wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: payload)), promise: nil) }
        flushPending = true
    }

    /// Passes the held frames on, in the order they came, then `frame`.
    private func release(_ call: HTTP2HeldCall, then frame: HTTP2Frame?, context: ChannelHandlerContext) {
        for held in call.frames { context.fireChannelRead(Self.wrapInboundOut(held)) }
        if let frame { context.fireChannelRead(Self.wrapInboundOut(frame)) }
    }

    package func channelReadComplete(context: ChannelHandlerContext) {
        if flushPending {
            flushPending = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // Most events are window updates (five of a replayed call's eight), and a cast that
        // fails costs as much as one that succeeds: each handler after this one tried up to
        // five on each (`tryCast` was 3 % of a replayed call's samples). Types are compared first.
        let type = Swift.type(of: event)
        if type == NIOHTTP2WindowUpdatedEvent.self {
            // A stream's window only matters to the stream's channel, which a stream answered
            // or held here does not have.
            let streamID = (event as! NIOHTTP2WindowUpdatedEvent).streamID
            if streamID != .rootStream, owned.contains(streamID) || held[streamID] != nil { return }
        } else if type == StreamClosedEvent.self {
            let closed = event as! StreamClosedEvent
            owned.remove(closed.streamID)
            // A stream reset before its handler took what was made for it.
            if !handoffs.isEmpty { handoffs.removeValue(forKey: closed.streamID) }
            if !held.isEmpty { held.removeValue(forKey: closed.streamID) }
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// What the responder made for the request that opened `stream` and did not answer here
    /// (`HTTP2PlainOutcome.handedOff`), once: the stream's channel initializer asks.
    package func takeHandoff(for stream: Channel) -> (any Sendable)? {
        guard !handoffs.isEmpty, let streamID = try? stream.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID) else { return nil }
        return handoffs.removeValue(forKey: streamID)
    }

    /// Whether the request these HEADERS open was answered here.
    private func answered(_ headers: HPACKHeaders, on streamID: HTTP2StreamID, context: ChannelHandlerContext) -> Bool {
        guard let head = Self.requestHead(headers), responder.isPlain(head) else {
            return false
        }
        // Owned before the answer is written: `NIOHTTP2Handler` fires the stream's
        // `StreamClosedEvent` from within the write that ends it, which must find it here.
        owned.insert(streamID)
        let stream = HTTP2PlainStream(context: context, streamID: streamID, logShard: logShard)
        switch responder.replyOnConnection(to: head, started: .now(), stream: stream) {
        case .declined:
            owned.remove(streamID)
            return false
        case .answered:
            flushPending = true
            return true
        case .handedOff(let made):
            owned.remove(streamID)
            handoffs[streamID] = made
            return false
        }
    }

    /// The request head `HTTP2FramePayloadToHTTP1ServerCodec` makes of a request's HEADERS that
    /// end its stream (`HTTPRequestHead(http2HeaderBlock:isEndStream:)`): version 2.0, `:method`,
    /// `:path`, `Host` from `:authority` first unless the request has one, then the regular
    /// headers in their order. `nil` where the codec would refuse them (a pseudo-header missing,
    /// twice, or with CR, LF or NUL in it; the stream path then resets the stream as before), and
    /// for methods other than GET, HEAD and DELETE: the codec gives those `content-length: 0`,
    /// which keeps them off the plain path anyway (TRACE and CONNECT too, which take the long way).
    static func requestHead(_ headers: HPACKHeaders) -> HTTPRequestHead? {
        var method: String?
        var path: String?
        var scheme: String?
        var authority: String?
        var fields: [(String, String)] = []
        fields.reserveCapacity(headers.count - 2)
        var hasHost = false
        for (name, value, _) in headers {
            guard name.utf8.first == UInt8(ascii: ":") else {
                // Lower-case: `NIOHTTP2Handler` refuses header names that are not.
                if !hasHost && name == "host" { hasHost = true }
                fields.append((name, value))
                continue
            }
            switch name {
            case ":method":
                guard method == nil else { return nil }
                method = value
            case ":path":
                guard path == nil else { return nil }
                path = value
            case ":scheme":
                guard scheme == nil else { return nil }
                scheme = value
            case ":authority":
                guard authority == nil else { return nil }
                authority = value
            default:
                break
            }
        }
        guard let method, let path, let scheme, let authority, Self.isValid(method), Self.isValid(path), Self.isValid(scheme), Self.isValid(authority)
        else { return nil }
        let httpMethod: HTTPMethod
        switch method {
        case "GET": httpMethod = .GET
        case "HEAD": httpMethod = .HEAD
        case "DELETE": httpMethod = .DELETE
        default: return nil
        }
        if !hasHost { fields.insert(("host", authority), at: 0) }
        return HTTPRequestHead(version: HTTPVersion(major: 2, minor: 0), method: httpMethod, uri: path, headers: HTTPHeaders(fields))
    }

    /// A pseudo-header value the codec accepts: no CR, LF or NUL, which could smuggle a request
    /// into an HTTP/1.1 head.
    private static func isValid(_ value: String) -> Bool {
        !value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    }
}

@available(*, unavailable)
extension HTTP2PlainReplies: Sendable {}

/// What a responder did with a request offered at the HTTP/2 connection
/// (`ConnectionResponder.replyOnConnection`).
package enum HTTP2PlainOutcome {
    /// Not answered and not looked at: the stream path gets the request as if never offered.
    case declined
    /// Answered: its frames are written on the connection (`HTTP2PlainStream.write`).
    case answered
    /// Looked at with effects that must not happen twice (a replay pick, a miss counted), not
    /// answered: the stream path answers it with this, which it gets back from
    /// `HTTPConnection.takeHandoff()`. Opaque to the kernel: only the responder that made it
    /// knows its type.
    case handedOff(any Sendable)
}

/// A new HTTP/2 stream offered to a responder at the connection (`HTTP2PlainReplies`): where its
/// answer goes. Used on the connection's event loop only, during `replyOnConnection`.
package struct HTTP2PlainStream {
    /// The connection's context (`HTTP2PlainReplies`'s).
    package let context: ChannelHandlerContext
    package let streamID: HTTP2StreamID
    /// The connection's event loop's request-log buffer.
    package let logShard: Int

    package init(context: ChannelHandlerContext, streamID: HTTP2StreamID, logShard: Int) {
        self.context = context
        self.streamID = streamID
        self.logShard = logShard
    }

    /// Writes `head`'s HTTP/2 headers and `body` (`nil`: none) as the stream's whole answer, as
    /// `HTTP2ReplyOutlet` writes it on a stream channel: HEADERS and one DATA frame that ends the
    /// stream, or HEADERS that end it. Flushed when the connection's read completes, with the
    /// other answers of that read.
    package func write(_ head: PreparedHead, body: ByteBuffer?) {
        if let body {
            context.write(HTTP2PlainReplies.wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: head.http2Headers)))), promise: nil)
            context.write(
                HTTP2PlainReplies.wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .data(.init(data: .byteBuffer(body), endStream: true)))), promise: nil
            )
        } else {
            context.write(
                HTTP2PlainReplies.wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: head.http2Headers, endStream: true)))),
                promise: nil)
        }
    }
}
