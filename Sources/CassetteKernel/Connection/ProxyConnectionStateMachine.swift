import NIOCore
import NIOHTTP1

/// One connection's reading of requests, as decisions without side effects: each event (a head, a
/// body chunk, the end, an error) moves the state on and returns what the handler must do. The
/// handler (`HTTPConnectionHandler`) performs the actions; the decisions are tested without a channel.
///
/// Pipelining needs no state here: `HTTPServerPipelineHandler`, in front of the handler, delivers
/// the next request only once the answer to the one before has ended, and holds a parser error
/// back until then.
package struct ProxyConnectionStateMachine {
    package enum State: Equatable {
        /// Between requests.
        case idle
        /// Collecting a request's body; `body` is `nil` until the first chunk.
        case receiving(HTTPRequestHead, body: ByteBuffer?, started: NIODeadline, route: Route)
        /// The request was refused before its end (too large, an upgrade): the rest of it is dropped.
        case discarding
        /// The connection is closing after a parser error; nothing more is read.
        case closed
    }

    package enum Action: Equatable {
        /// Nothing to do.
        case none
        /// Tell the client to send its body (`Expect: 100-continue`).
        case sendContinue(HTTPVersion)
        /// Answer with `answer` at once and close the connection; the request is not forwarded.
        case refuse(ProxyAnswerKind, HTTPRequestHead, started: NIODeadline)
        /// The request is complete: answer it as `route` says.
        case answer(HTTPRequestHead, body: ByteBuffer?, started: NIODeadline, route: Route)
        /// Write the 400 for a request that is not HTTP/1.1, then close.
        case rejectMalformed(HTTPParserError)
        /// Close the connection.
        case close
    }

    /// Where a complete request goes, decided when its head came.
    package enum Route: Equatable {
        /// To the connection's responder (the module that serves the listener).
        case responder
        /// To a control endpoint, or refused by the control table (404, 405).
        case control(ControlTable.Decision)

        package static func == (lhs: Route, rhs: Route) -> Bool {
            switch (lhs, rhs) {
            case (.responder, .responder): true
            case (.control(let left), .control(let right)): left.path == right.path && left.refusal == right.refusal
            default: false
            }
        }
    }

    /// Why a request was refused before its end.
    package enum ProxyAnswerKind: Equatable {
        /// Its body is larger than the limit (413).
        case tooLarge
        /// An expectation or upgrade the proxy cannot meet (417, 501), as decided when the head came.
        case interim(InterimRequestHeaders.Decision)
    }

    package private(set) var state = State.idle
    package var maxBodySize: Int
    /// The control endpoints of the responder answering the connection's requests.
    package var controls: ControlTable
    /// Whether the pipeline offers WebSocket upgrades: a WebSocket handshake that reaches this
    /// machine was declined by the upgrader and is answered over HTTP (a recorded refusal, a miss).
    /// On the forward listener it is each request's host's (`HTTPConnectionHandler` sets it per request).
    package var answersWebSocketsOverHTTP: Bool

    package init(maxBodySize: Int, answersWebSocketsOverHTTP: Bool = false, controls: ControlTable = ControlTable()) {
        self.maxBodySize = maxBodySize
        self.controls = controls
        self.answersWebSocketsOverHTTP = answersWebSocketsOverHTTP
    }

    /// The request was answered when its head came (a refused WebSocket handshake): the rest is dropped.
    package mutating func discardRequest() {
        if state != .closed { state = .discarding }
    }

    /// A request's head. `head` may come back changed (an `h2c` upgrade answered over HTTP/1.1).
    package mutating func head(_ head: HTTPRequestHead, now: NIODeadline) -> (head: HTTPRequestHead, action: Action) {
        guard state != .closed else { return (head, .none) }
        let plain = InterimRequestHeaders.absent(from: head)
        if !plain, case let decision = InterimRequestHeaders.decision(for: head, webSocketsOverHTTP: answersWebSocketsOverHTTP), decision != .proceed {
            state = .discarding
            return (head, .refuse(.interim(decision), head, started: now))
        }
        let head = plain ? head : InterimRequestHeaders.withoutH2CUpgrade(head, orWebSocket: answersWebSocketsOverHTTP)
        if let length = head.headers.first(name: "content-length").flatMap(Int.init), length > maxBodySize {
            state = .discarding
            return (head, .refuse(.tooLarge, head, started: now))
        }
        let route: Route = controls.claims(head.uri) ? .control(controls.route(head.method, head.uri)) : .responder
        state = .receiving(head, body: nil, started: now, route: route)
        if !plain, InterimRequestHeaders.expectsContinue(head) {
            return (head, .sendContinue(head.version))
        }
        return (head, .none)
    }

    /// A chunk of the body; past the limit the request is refused and the rest dropped.
    package mutating func body(_ chunk: ByteBuffer) -> Action {
        guard case .receiving(let head, var body, let started, let route) = state else { return .none }
        if (body?.readableBytes ?? 0) + chunk.readableBytes > maxBodySize {
            state = .discarding
            return .refuse(.tooLarge, head, started: started)
        }
        // Dropping the state's copy first lets the buffer grow in place instead of copying.
        state = .idle
        if body == nil {
            body = chunk
        } else {
            var chunk = chunk
            body!.writeBuffer(&chunk)
        }
        state = .receiving(head, body: body, started: started, route: route)
        return .none
    }

    /// The request's end.
    package mutating func end() -> Action {
        switch state {
        case .receiving(let head, let body, let started, let route):
            state = .idle
            return .answer(head, body: body, started: started, route: route)
        case .discarding:
            state = .idle
            return .none
        case .idle, .closed:
            return .none
        }
    }

    /// An error from the pipeline: a parser error gets its 400 first; any error closes.
    /// Bytes that reach the decoder after its parser error (pipelined requests behind the
    /// malformed one) come as errors of their own, at once, while the parser error waits in
    /// `HTTPServerPipelineHandler` for the answers in flight: closing on them would destroy those
    /// answers, so they change nothing and the parser error, when its turn comes, closes.
    package mutating func error(_ error: any Error) -> Action {
        if case .dataReceivedInErrorState(let cause, _) = error as? ByteToMessageDecoderError, cause is HTTPParserError {
            return .none
        }
        let wasClosed = state == .closed
        state = .closed
        if !wasClosed, let parserError = error as? HTTPParserError {
            return .rejectMalformed(parserError)
        }
        return .close
    }
}
