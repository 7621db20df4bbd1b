import NIOCore
import NIOHTTP1

/// What the writer tells of each answer, and how it adapts one to its client, as the modules
/// plug it in: the kernel writes answers and knows nothing of sessions, the UI or upstream URLs.

/// A session's journal: told of every answer before it goes out.
package protocol AnswerJournal: AnyObject, Sendable {
    func add(method: NIOHTTP1.HTTPMethod, origin: String?, target: String, key: String?, answer: ProxyAnswer, started: NIODeadline, shard: Int)
}

/// The UI's Live view: told of every answer but the proxy's own endpoints'. While nobody
/// follows, an announcement must cost no more than an atomic load.
package protocol AnswerFeed: AnyObject, Sendable {
    func announce(
        method: NIOHTTP1.HTTPMethod, target: String, status: Int, tag: String, miss: ReportedMiss?, started: NIODeadline, session: String?)
    /// A gRPC call a module answered on its own HTTP/2 stream (`POST` to `path`, HTTP 200), with
    /// its `grpc-status` by name (`OK`, `NOT_FOUND`) and `grpc-message`.
    func announceCall(path: String, grpcStatus: String, message: String?, tag: String, started: NIODeadline, session: String?)
}

extension AnswerFeed {
    package func announceCall(path: String, grpcStatus: String, message: String?, tag: String, started: NIODeadline, session: String?) {
        announce(method: .POST, target: path, status: 200, tag: tag, miss: nil, started: started, session: session)
    }
}

/// Rewrites an answer made per request for the address its client reached the proxy by
/// (upstream URLs pointing at the proxy).
package protocol AnswerRewriter: Sendable {
    func served(_ answer: ProxyAnswer, proxyBase: @autoclosure () -> String) -> ProxyAnswer
    /// `ownBase`: the address of the listener the request came in on (`ProxyBase.own`), which
    /// differs from `proxyBase` on a forward proxy, whose requests name their upstream's host.
    func served(_ answer: ProxyAnswer, proxyBase: @autoclosure () -> String, ownBase: @autoclosure () -> String) -> ProxyAnswer
}

extension AnswerRewriter {
    package func served(_ answer: ProxyAnswer, proxyBase: @autoclosure () -> String, ownBase: @autoclosure () -> String) -> ProxyAnswer {
        served(answer, proxyBase: proxyBase())
    }
}

/// A prepared answer made for one address of the proxy, with the answer to use instead for a
/// client that reached it by another.
package protocol AddressBoundAnswer: AnyObject, Sendable {
    /// The address the answer was prepared for; `nil`: none, rewrite it for every client.
    var preparedBase: String? { get }
    var original: ProxyAnswer { get }
}

/// Names a request in its log line: its target with secrets scrubbed (the keyer's rules).
package protocol RequestNaming: Sendable {
    func logTarget(of head: HTTPRequestHead) -> String
}
