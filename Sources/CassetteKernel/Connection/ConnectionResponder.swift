import NIOCore
import NIOHTTP1

/// What the kernel's connection handler is given: the module that answers a listener's requests
/// (serving a cassette, the UI of `cassette ui`). The kernel reads requests, routes control paths
/// through `controls`, refuses what HTTP/1.1 cannot carry, writes answers and closes connections;
/// everything a request means beyond that is the responder's.
///
/// A class, made per listener (or per listener and event loop): a request hands on one reference.
package protocol ConnectionResponder: AnyObject, Sendable {
    /// The largest request body accepted (413 above it).
    var maxBodySize: Int { get }
    /// Writes this responder's answers.
    var writer: AnswerWriter { get }
    /// The control endpoints its listener answers.
    var controls: ControlTable { get }
    /// Whether a WebSocket handshake that reaches the handler (the listener's upgrader declined
    /// it) is an HTTP request to answer, rather than an upgrade to refuse with 501.
    var answersWebSocketsOverHTTP: Bool { get }

    /// Who answers a request with `head`, decided when the head comes: this responder, another
    /// (a session's, a forward proxy's host's), or an answer given once the request has ended.
    func select(_ head: HTTPRequestHead, on eventLoop: any EventLoop) -> ResponderSelection

    /// Whether the request can take the replay fast path: no body, nothing to route; answered
    /// at its end by `respond(to:plain: true, ...)` without the state machine.
    func isPlain(_ head: HTTPRequestHead) -> Bool

    /// An answer given as the head comes, dropping the rest of the request and closing the
    /// connection (a protocol switch refused: the client does not offer the recorded subprotocol).
    func refusal(at head: HTTPRequestHead, on eventLoop: any EventLoop) -> ProxyAnswer?

    /// Answers a complete request that is not a control request.
    func respond(to request: ConnectionRequest, plain: Bool, connection: HTTPConnection)

    /// Answers a plain request (`isPlain` holds) that opened an HTTP/2 stream with one HEADERS
    /// frame, at the connection, without a stream channel (`HTTP2PlainReplies`): by writing a
    /// prepared answer with `stream.write`, logged, announced and counted as `respond` would.
    /// Declining leaves the request to the stream path untouched; an answer that needs more than
    /// prepared bytes, once something with effects was done for it (a replay pick), is handed
    /// to the stream path, whose `respond` gets it back (`HTTPConnection.takeHandoff()`).
    /// The default declines.
    func replyOnConnection(to head: HTTPRequestHead, started: NIODeadline, stream: HTTP2PlainStream) -> HTTP2PlainOutcome
}

extension ConnectionResponder {
    package func replyOnConnection(to head: HTTPRequestHead, started: NIODeadline, stream: HTTP2PlainStream) -> HTTP2PlainOutcome {
        .declined
    }
}

/// Who answers one request (`ConnectionResponder.select`).
package enum ResponderSelection {
    case this
    case other(any ConnectionResponder)
    /// Answered with this once the request has ended (an unknown session).
    case answer(ProxyAnswer)
}

/// A complete request.
package struct ConnectionRequest {
    package let head: HTTPRequestHead
    package let body: ByteBuffer?
    package let started: NIODeadline

    package init(head: HTTPRequestHead, body: ByteBuffer?, started: NIODeadline) {
        self.head = head
        self.body = body
        self.started = started
    }
}

/// The connection a responder answers on: the handler's context and its ways to write. Used on
/// the connection's event loop only, during `respond`.
package struct HTTPConnection {
    package let context: ChannelHandlerContext
    /// The connection's event loop's request-log buffer.
    package let logShard: Int
    private let handler: HTTPConnectionHandler
    /// An HTTP/2 stream's frame writer for prepared replies (`nil` on HTTP/1.1).
    package var http2Outlet: HTTP2ReplyOutlet? { handler.http2Outlet }

    init(context: ChannelHandlerContext, logShard: Int, handler: HTTPConnectionHandler) {
        self.context = context
        self.logShard = logShard
        self.handler = handler
    }

    /// What the connection's `HTTP2PlainReplies` made for this stream's request and handed on
    /// (`HTTP2PlainOutcome.handedOff`), once; `nil` on HTTP/1.1 and for every other stream.
    package func takeHandoff() -> (any Sendable)? {
        handler.takeHandoff()
    }

    /// Writes `answer` to `request` with `writer` at once (after its delay).
    package func send(
        _ answer: ProxyAnswer, to request: ConnectionRequest, key: String? = nil, forceClose: Bool = false, writer: AnswerWriter
    ) {
        handler.send(answer, head: request.head, started: request.started, key: key, forceClose: forceClose, writer: writer, context: context)
    }

    /// Writes what `make` answers, made in a task on this connection's event loop.
    package func later(
        _ request: ConnectionRequest, key: String? = nil, writer: AnswerWriter, _ make: @escaping @Sendable () async -> ProxyAnswer
    ) {
        handler.later(head: request.head, started: request.started, key: key, writer: writer, context: context, make)
    }
}

extension HTTPConnectionHandler {
    func connection(_ context: ChannelHandlerContext) -> HTTPConnection {
        HTTPConnection(context: context, logShard: logShard, handler: self)
    }
}
