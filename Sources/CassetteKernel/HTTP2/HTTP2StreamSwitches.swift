import NIOCore
import NIOHPACK
import NIOHTTP1
import NIOHTTP2

/// Where modules take whole HTTP/2 streams over (gRPC), as `ProtocolSwitches` is for `Upgrade`:
/// each module registers a `Switch` (through `ServingProtocol.offerStreams(on:)`, registered in
/// `ProxyModules.swift`), and every HTTP/2 connection of a listener that carries it asks the
/// switches, in order, about each new stream's request HEADERS. The first that `takes` them owns
/// the stream; a stream none takes is an ordinary request, answered by `HTTPConnectionHandler`
/// exactly as over HTTP/1.1 (keyed, recorded, replayed, journaled, shown, counted).
///
/// The contract for a module's switch:
/// - `takes` is asked on the stream's event loop with the request's HEADERS (pseudo-headers
///   included: `:method`, `:path`, `:authority`, `:scheme`; names lower-case as HTTP/2 has them)
///   before anything else sees the stream. It only looks at headers; it must be cheap.
/// - `takeOver` is then called, on the same loop, with the stream channel's pipeline, still
///   empty of the kernel's handlers, and `HTTP2TakenStream` (the HEADERS it decided on, and the
///   connection's `ConnectionLoop`: its request-log buffer and per-loop storage). It adds the
///   handlers that own the stream. They receive `HTTP2Frame.FramePayload`s, the HEADERS first,
///   then DATA and, when the client sends them, trailers (a HEADERS with `endStream`); they write
///   `HTTP2Frame.FramePayload`s: response HEADERS, DATA, and trailers as a last HEADERS with
///   `endStream` (a trailers-only answer is one HEADERS with `endStream`). Both directions stream
///   independently; flow control is swift-nio-http2's (a write's promise completes when the frame
///   is out; `channel.isWritable` tells when to hold back). Closing the stream channel before both
///   sides have ended sends RST_STREAM(CANCEL); a client's RST_STREAM closes the channel
///   (`channelInactive`). A module that would rather speak `HTTPServerRequestPart`s and
///   `HTTPServerResponsePart`s adds `HTTP2FramePayloadToHTTP1ServerCodec` first: `.end(trailers)`
///   then carries trailers both ways.
/// - `takeOver` throwing resets the stream; the connection and its other streams go on.
/// - Over HTTP/1.1 the kernel never offers a request to a switch: a request that `takesOverHTTP1`
///   (the same content type) is refused with 505 and the connection closed, so such a protocol is
///   never served, recorded or forwarded as an ordinary HTTP/1.1 exchange by mistake.
package struct HTTP2StreamSwitches: Sendable {
    /// One module's switch.
    package struct Switch: Sendable {
        /// The protocol's name, in refusals and log lines ("gRPC").
        package let name: String
        /// Whether the module owns the stream these request HEADERS open.
        package let takes: @Sendable (HPACKHeaders) -> Bool
        /// Whether an HTTP/1.1 request is one the module would take over HTTP/2.
        package let takesOverHTTP1: @Sendable (HTTPRequestHead) -> Bool
        /// Sets the stream's pipeline up for the module's handlers.
        package let takeOver: @Sendable (ChannelPipeline.SynchronousOperations, HTTP2TakenStream) throws -> Void
        /// Optional, the hot path of a module's calls: asked on the connection's loop with the
        /// request HEADERS of a stream the switch takes (and the loop's request-log shard). A call it returns an answerer for has its
        /// frames held at the connection (`HTTP2PlainReplies`) until the client ends the stream;
        /// then the answerer gets the whole body and returns the whole answer, written on the
        /// connection without a stream channel, or `nil`: the held frames then go to the stream
        /// (`takeOver`), in order, as if never held, so the answerer must not have done anything
        /// the stream path does again. It returns `nil` itself for a call that may not end before
        /// it is answered (a stream where the client waits for the server), which would wait forever.
        package var answersWhole: (@Sendable (_ headers: HPACKHeaders, _ logShard: Int) -> HTTP2WholeAnswerer?)?

        package init(
            name: String, takes: @escaping @Sendable (HPACKHeaders) -> Bool, takesOverHTTP1: @escaping @Sendable (HTTPRequestHead) -> Bool,
            takeOver: @escaping @Sendable (ChannelPipeline.SynchronousOperations, HTTP2TakenStream) throws -> Void
        ) {
            self.name = name
            self.takes = takes
            self.takesOverHTTP1 = takesOverHTTP1
            self.takeOver = takeOver
            answersWhole = nil
        }

        /// A switch taking every stream whose `content-type` is `mediaType` or a variant of it
        /// (`application/grpc`, `application/grpc+proto`, `application/grpc; charset=...`; not
        /// `application/grpc-web`, which is another protocol, spoken over HTTP/1.1 too).
        package static func contentType(
            _ mediaType: String, name: String, takeOver: @escaping @Sendable (ChannelPipeline.SynchronousOperations, HTTP2TakenStream) throws -> Void
        ) -> Switch {
            let mediaType = mediaType.lowercased()
            return Switch(
                name: name, takes: { headers in headers.first(name: "content-type").map { Self.isVariant($0, of: mediaType) } ?? false },
                takesOverHTTP1: { head in head.headers.first(name: "content-type").map { Self.isVariant($0, of: mediaType) } ?? false },
                takeOver: takeOver)
        }

        /// Whether `value` is `mediaType`, or it followed by `+suffix` or `;parameters`.
        /// Compared byte by byte without lower-casing a copy: every HTTP/2 stream asks this.
        package static func isVariant(_ value: String, of mediaType: String) -> Bool {
            var rest = value.utf8.drop { $0 == UInt8(ascii: " ") }
            for expected in mediaType.utf8 {
                guard let byte = rest.first else { return false }
                let folded = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
                guard folded == expected else { return false }
                rest = rest.dropFirst()
            }
            guard let next = rest.first else { return true }
            return next == UInt8(ascii: "+") || next == UInt8(ascii: ";") || next == UInt8(ascii: " ")
        }
    }

    package private(set) var switches: [Switch] = []

    package init(_ switches: [Switch] = []) {
        self.switches = switches
    }

    /// No module takes streams: every HTTP/2 stream is an ordinary request.
    package static let none = HTTP2StreamSwitches()

    package var isEmpty: Bool { switches.isEmpty }

    /// These switches and `more`.
    package func registering(_ more: Switch) -> HTTP2StreamSwitches {
        HTTP2StreamSwitches(switches + [more])
    }

    /// The switch that takes a stream opened by `headers`.
    package func taker(of headers: HPACKHeaders) -> Switch? {
        switches.first { $0.takes(headers) }
    }

    /// The answer to an HTTP/1.1 request that a switch would take over HTTP/2; `nil` for others.
    package func refusalOverHTTP1(_ head: HTTPRequestHead) -> ProxyAnswer? {
        guard let taker = switches.first(where: { $0.takesOverHTTP1(head) }) else { return nil }
        return .error(
            505, code: "http2_required",
            message:
                "\(taker.name) needs HTTP/2, and this request came over HTTP/1.1; connect with HTTP/2 (prior knowledge on this port, as gRPC clients do for http:// targets, or ALPN h2 over TLS)"
        )
    }
}

/// Answers a call whose request came whole, on the connection's loop: the stream's DATA bytes
/// joined (`HTTP2StreamSwitches.Switch.answersWhole`). `nil`: the stream path answers it.
package typealias HTTP2WholeAnswerer = (_ body: ByteBuffer) -> [HTTP2Frame.FramePayload]?

/// A stream a module takes over (`HTTP2StreamSwitches.Switch.takeOver`).
package struct HTTP2TakenStream: Sendable {
    /// The request HEADERS that opened it (they also reach the module's first handler).
    package let headers: HPACKHeaders
    /// The connection's event loop's request-log buffer and per-loop storage.
    package let loop: ConnectionLoop
}

/// The first handler of each HTTP/2 stream on a listener with stream switches: on the stream's
/// request HEADERS it sets the stream up for the switch that takes it, or for the kernel's own
/// handling, hands the HEADERS on and leaves the pipeline.
final class HTTP2StreamRouter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias InboundOut = HTTP2Frame.FramePayload

    private let switches: HTTP2StreamSwitches
    private let loop: ConnectionLoop
    private let ordinary: (ChannelPipeline.SynchronousOperations) throws -> Void

    init(switches: HTTP2StreamSwitches, loop: ConnectionLoop, ordinary: @escaping (ChannelPipeline.SynchronousOperations) throws -> Void) {
        self.switches = switches
        self.loop = loop
        self.ordinary = ordinary
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let pipeline = context.pipeline.syncOperations
        do {
            if case .headers(let headers) = Self.unwrapInboundIn(data), let taker = switches.taker(of: headers.headers) {
                try taker.takeOver(pipeline, HTTP2TakenStream(headers: headers.headers, loop: loop))
            } else {
                try ordinary(pipeline)
            }
        } catch {
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
        pipeline.removeHandler(context: context, promise: nil)
    }
}

@available(*, unavailable)
extension HTTP2StreamRouter: Sendable {}
