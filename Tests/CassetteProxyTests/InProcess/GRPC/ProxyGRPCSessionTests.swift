import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore

/// gRPC calls on the proxy's main port with `x-cassette-session: ID` in their metadata are the
/// session's, as REST requests with `X-Cassette-Session` are: served from the session's cassette,
/// in its journal and its summary; a session that is not live is a gRPC error carrying REST's
/// message. PyPI `grpcio` as client and server (Tests/Peers/grpc_peer.py).
@Suite("gRPC calls routed to a session by x-cassette-session on the main port")
final class ProxyGRPCSessionTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("grpc.db") }
    static let getItem = "/shop.v1.Catalog/GetItem"

    init() throws {
        workspace = try CLIWorkspace()
    }

    private func protoset() async throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory(prefix: "grpc-protoset")
        return (directory, try await GRPCPeers.protoset(in: directory).path)
    }

    /// Records `scenario` into `cassette` of this suite's store.
    private func record(_ scenario: String, cassette: String) async throws {
        let (directory, protoset) = try await protoset()
        try await GRPCPeers.withServer { upstream in
            try await withInProcessProxy(
                ["record", "--upstream", upstream.absoluteString, "--port", "0", "--db", store, "--cassette", cassette, "--protoset", protoset]
            ) { proxy in
                _ = try await GRPCPeers.runClient(scenario, against: proxy.url(""))
            }
        }
        _ = directory
    }

    @Test("on a replaying proxy a call with x-cassette-session is served from the session's cassette, journaled and summed up as the session's")
    func replayedThroughTheMainPort() async throws {
        try await record("get,list", cassette: "checkout")
        // The proxy's own cassette has another method only.
        try await record("count", cassette: "dev")
        let output = try await withInProcessReplayer(store: store, arguments: ["--track-usage"]) { proxy in
            let session = try await proxy.openSession("checkout")
            let calls = try await GRPCPeers.runClient("get,never", against: proxy.url(""), metadata: ["x-cassette-session": session.id])
            #expect(calls.map(\.code) == ["OK", "NOT_FOUND"], "\(calls.map(\.line.compactJSON))")
            #expect(calls.first?.line["body"]?["item"]?["name"] == "Dune", "\(calls.map(\.line.compactJSON))")
            let entries = try await session.requests()
            #expect(entries.map { $0["path"] as? String } == [Self.getItem, Self.getItem], "\(entries)")
            #expect(entries.map { $0["source"] as? String } == ["hit", "miss"], "\(entries)")
            // Without the metadata the call is the proxy's own cassette's, which has no GetItem.
            let own = try await GRPCPeers.runClient("get", against: proxy.url(""))
            #expect(own.map(\.code) == ["UNIMPLEMENTED"], "\(own.map(\.line.compactJSON))")
            #expect(try await session.requests().count == 2)

            let ended = try await session.end()
            #expect(ended.statusCode == 200, "\(ended.bodyText)")
            #expect(try ended.jsonObject()["unusedGRPCMethods"] as? [String] == ["/shop.v1.Catalog/ListItems"], "\(ended.bodyText)")
            _ = await proxy.stop()
            return (session.id, proxy.outputLines)
        }
        let (id, lines) = output
        #expect(
            lines.contains("session \(id) ended: served 1, recorded 0, missed 1, unused recordings 0, unused gRPC methods 1"), "\(lines)")
        // The session's replay is a gRPC call in the usage phrase, not a WebSocket conversation.
        let summary = try #require(lines.first { $0.hasPrefix("recorded ") }, "\(lines)")
        #expect(
            summary
                == "recorded 0, replayed 0, missed 0, gRPC calls recorded 0, replayed 0, missed 1, usage saved for 0 recordings and 1 gRPC call, unused recordings 0, unused gRPC methods 1",
            "\(summary)")
    }

    @Test("a session's closing line counts its unused gRPC methods and the usage phrase names its replays gRPC calls, on its own port too")
    func summariesNameTheSessionsCalls() async throws {
        try await record("get,list", cassette: "checkout")
        try await record("count", cassette: "dev")
        let (id, lines) = try await withInProcessReplayer(store: store, arguments: ["--track-usage"]) { proxy in
            let session = try await proxy.openSession("checkout")
            let calls = try await GRPCPeers.runClient("get", against: session.baseURL)
            #expect(calls.map(\.code) == ["OK"], "\(calls.map(\.line.compactJSON))")
            _ = try await session.end()
            _ = await proxy.stop()
            return (session.id, proxy.outputLines)
        }
        #expect(lines.contains("session \(id) ended: served 1, recorded 0, missed 0, unused recordings 0, unused gRPC methods 1"), "\(lines)")
        #expect(
            lines.contains(
                "recorded 0, replayed 0, missed 0, gRPC calls recorded 0, replayed 0, missed 0, usage saved for 0 recordings and 1 gRPC call, unused recordings 0, unused gRPC methods 1"
            ), "\(lines)")
    }

    @Test("with --grpc-timing fast a unary call answered whole at the connection (curl over h2c) is the session's too, and in its journal")
    func wholeCallRepliesAreTheSessions() async throws {
        try await record("get", cassette: "checkout")
        // The proxy's own cassette answers the same call: its connection could answer it whole.
        try await record("get", cassette: "dev")
        let (request, _) = try await GRPCPeers.encode("GetItemRequest", json: #"{"id": "b1", "quantity": 2}"#)
        var framed = Data([0])
        framed.append(contentsOf: withUnsafeBytes(of: UInt32(request.count).bigEndian, Array.init))
        framed.append(request)
        let body = workspace.path("request.bin")
        try framed.write(to: URL(fileURLWithPath: body))
        try await withInProcessReplayer(store: store, arguments: ["--grpc-timing", "fast"]) { proxy in
            let session = try await proxy.openSession("checkout")
            // curl sends the request in one DATA frame with END_STREAM: the kind of call the
            // connection answers whole, were it not a session's.
            for target in [session.baseURL, proxy.url("")] {
                let curl = try await ExternalTool.run(
                    [
                        "curl", "-s", "--http2-prior-knowledge", "-H", "content-type: application/grpc", "-H", "te: trailers", "-H",
                        "x-cassette-session: \(session.id)", "--data-binary", "@" + body, "-o", "/dev/null", "-w", "%{http_code}",
                        target.appendingPathComponent("shop.v1.Catalog/GetItem").absoluteString,
                    ], cwd: workspace.directory)
                #expect(curl.stdout == "200", "\(curl)")
            }
            let entries = try await session.requests()
            #expect(entries.map { $0["source"] as? String } == ["hit", "hit"], "\(entries)")
        }
    }

    @Test("an unknown or ended session, and none on a --sessions-only port, are gRPC errors with REST's message, never an HTTP error")
    func sessionErrorsAreGRPCErrors() async throws {
        try await record("get", cassette: "dev")
        try await withInProcessReplayer(store: store, arguments: ["--sessions-only"]) { proxy in
            let unknown = try await GRPCPeers.runClient("get", against: proxy.url(""), metadata: ["x-cassette-session": "nope"])
            #expect(unknown.map(\.code) == ["NOT_FOUND"], "\(unknown.map(\.line.compactJSON))")
            let rest = try await proxy.get("/api/anything", headers: [HTTPField.Name("X-Cassette-Session")!: "nope"])
            #expect(rest.statusCode == 404, "\(rest.bodyText)")
            let message = try #require(try rest.jsonObject()["message"] as? String)
            #expect(unknown.first?.line["details"]?.stringValue == "cassette: " + message, "\(unknown.map(\.line.compactJSON))")

            let required = try await GRPCPeers.runClient("get", against: proxy.url(""))
            #expect(required.map(\.code) == ["FAILED_PRECONDITION"], "\(required.map(\.line.compactJSON))")
            let details = required.first?.line["details"]?.stringValue ?? ""
            #expect(details.contains("serves sessions only (--sessions-only)") && details.contains("x-cassette-session: ID"), "\(details)")

            let session = try await proxy.openSession("dev")
            let served = try await GRPCPeers.runClient("get", against: proxy.url(""), metadata: ["x-cassette-session": session.id])
            #expect(served.map(\.code) == ["OK"], "\(served.map(\.line.compactJSON))")
            _ = try await session.end()
            let gone = try await GRPCPeers.runClient("get", against: proxy.url(""), metadata: ["x-cassette-session": session.id])
            #expect(gone.map(\.code) == ["NOT_FOUND"], "\(gone.map(\.line.compactJSON))")
            #expect(gone.first?.line["details"]?.stringValue?.contains("no live session \"\(session.id)\"") == true, "\(gone.map(\.line.compactJSON))")
        }
    }

    @Test("on a recording proxy a call with x-cassette-session is recorded into the session's cassette, without that metadata")
    func recordedThroughTheMainPort() async throws {
        let (directory, protoset) = try await protoset()
        try await GRPCPeers.withServer { upstream in
            try await withInProcessProxy(["record", "--upstream", upstream.absoluteString, "--port", "0", "--db", store, "--protoset", protoset]) { proxy in
                let session = try await proxy.openSession("checkout")
                let calls = try await GRPCPeers.runClient("get", against: proxy.url(""), metadata: ["x-cassette-session": session.id])
                #expect(calls.map(\.code) == ["OK"], "\(calls.map(\.line.compactJSON))")
                let entries = try await session.requests()
                #expect(entries.map { $0["source"] as? String } == ["recorded"], "\(entries)")
            }
        }
        _ = directory
        let opened = try await CassetteStore.open(path: store, access: .readOnly)
        let checkout = try await opened.conversations(cassette: "checkout")
        let own = try await opened.conversations(cassette: "dev")
        try await opened.close()
        #expect(checkout.map(\.key) == ["POST \(Self.getItem)"])
        #expect(own.isEmpty)
        #expect(checkout.first.map { $0.requestHeaders[HTTPField.Name("x-cassette-session")!] == nil } == true, "\(checkout.first?.requestHeaders ?? [:])")
    }
}
