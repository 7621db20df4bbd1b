import CassetteKernel
import CassetteUI
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import WellPlateCore

/// `cassette ui`: the web UI of a store on a port of its own, with no proxy behind it (so no
/// Live view): the kernel's server with the UI as its only control endpoint, under `/`.
package struct UIServer: Sendable {
    private let server: ProxyServer
    /// The URL to open: `http://HOST:PORT/`, with `?token=…` when one is needed.
    package let url: String

    /// Serves `store` on `host`:`port` (0: a free one), with a token unless `host` is loopback;
    /// `findings` makes the Drift view's data (`UICatalog.findings`).
    package static func start(
        store: CassetteStore, host: String, port: Int, findings: (@Sendable () async throws -> JSONValue)? = nil
    ) async throws(UIServerError) -> UIServer {
        let access = UIAccess.forHost(host)
        var catalog = UICatalog(store: store)
        catalog.findings = findings
        let endpoints = UIEndpoints(catalog: catalog, access: access, live: nil)
        do {
            let server = try await ProxyServer.start(
                listeners: [ProxyServer.Listener(pipeline: UIPipeline(responder: UIResponder(endpoints: endpoints)), host: host, port: port)], threads: 1)
            return UIServer(server: server, url: "\(server.address)/\(access.query)")
        } catch {
            throw UIServerError(message: "\(error)")
        }
    }

    package func stop() async {
        await server.shutdown()
    }
}

/// Why `cassette ui` could not start (a port in use, an address this machine lacks), in words a user can act on.
package struct UIServerError: Error, CustomStringConvertible {
    package let message: String

    package var description: String { message }
}

/// The connections of `cassette ui`: the kernel's HTTP pipeline and handler with the UI's
/// responder, over HTTP/1.1 or HTTP/2 with prior knowledge.
struct UIPipeline: ConnectionPipeline {
    let responder: UIResponder

    func configure(_ pipeline: ChannelPipeline.SynchronousOperations, loop: ConnectionLoop) throws {
        let responder = self.responder
        try HTTPPipeline.configure(pipeline, http2: HTTP2Serving(), responder: responder, loop: loop) { operations in
            try HTTPPipeline.configure(operations, responder: responder, logShard: loop.logShard)
        }
    }
}

/// `cassette ui`'s responder: every path is a control path, the UI's under `/__cassette/ui/` and a
/// redirect there for any other (`UIEndpoints.decide`), GET only, as the table says.
final class UIResponder: ConnectionResponder {
    let controls: ControlTable
    let writer: AnswerWriter
    /// The UI reads no body; a small one is drained so a wrong method still gets its 405.
    var maxBodySize: Int { 64 * 1024 }
    var answersWebSocketsOverHTTP: Bool { false }

    init(endpoints: UIEndpoints) {
        controls = ControlTable(
            prefix: "/",
            routes: [
                endpoints.route,
                ControlTable.Route(path: "/", endpoint: endpoints, methods: [.GET, .HEAD], includesBelow: true, listed: false),
            ])
        // `cassette ui` logs no requests.
        let log = ProxyLog(requestLog: nil, stalePolicy: nil, logger: Logger(label: "cassette.ui") { _ in SwiftLogNoOpLogHandler() })
        writer = AnswerWriter(log: log, namer: TargetNaming())
    }

    func select(_ head: HTTPRequestHead, on eventLoop: any EventLoop) -> ResponderSelection { .this }
    func isPlain(_ head: HTTPRequestHead) -> Bool { false }
    func refusal(at head: HTTPRequestHead, on eventLoop: any EventLoop) -> ProxyAnswer? { nil }

    func respond(to request: ConnectionRequest, plain: Bool, connection: HTTPConnection) {
        // The table claims every path (its prefix is `/`): nothing reaches here.
        connection.send(UIEndpoints.error(404, "not_found", "open \(UIEndpoints.root)"), to: request, writer: writer)
    }

    /// The UI's requests carry no secrets to scrub from a log line, and none is logged.
    private struct TargetNaming: RequestNaming {
        func logTarget(of head: HTTPRequestHead) -> String { head.uri }
    }
}
