import Foundation
import TestSupport
import Testing
import WellPlateCore

/// gRPC calls wherever the store and the proxy are looked at: the UI's list and timeline (and
/// the HTML report), a session's journal, the Live view, `--track-usage`, the shutdown summary,
/// and `diff --fixtures` against the method files `export --fixtures` writes. Recorded through
/// `cassette record` between PyPI `grpcio`'s client and server (Tests/Peers/grpc_peer.py).
@Suite("gRPC calls in the UI, the journal, usage, the summary and drift")
final class ProxyGRPCViewsTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("grpc.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// Records `scenario` into `store` (default: this suite's); with `descriptors`, from shop.proto's
    /// protoset, else with none at all (no protoset, no reflection). Returns the recorder's output.
    @discardableResult
    private func record(_ scenario: String, descriptors: Bool = true, drift: Bool = false, into store: String? = nil) async throws -> [String] {
        let directory = try TemporaryDirectory(prefix: "grpc-protoset")
        let protoset = descriptors ? ["--protoset", try await GRPCPeers.protoset(in: directory).path] : []
        let store = store ?? self.store
        return try await GRPCPeers.withServer(drift: drift) { upstream in
            try await withInProcessProxy(["record", "--upstream", upstream.absoluteString, "--port", "0", "--db", store] + protoset) { proxy in
                _ = try await GRPCPeers.runClient(scenario, against: proxy.url(""))
                _ = await proxy.stop()
                return proxy.outputLines
            }
        }
    }

    private static func json(_ response: TransportResponse) throws -> JSONValue {
        try JSONValue(parsing: response.body)
    }

    @Test("the UI lists each call by method and status and shows its messages as protobuf JSON, both ways, with the report alike")
    func uiListsAndShowsCalls() async throws {
        try await record("get,missing,list,chat")
        try await withInProcessReplayer(store: store) { proxy in
            let listed = try Self.json(try await proxy.get("/__cassette/ui/api/conversations"))
            let calls = try #require(listed["conversations"]?.arrayValue)
            let methods = calls.compactMap { $0["grpc"]?["method"]?.stringValue }
            #expect(methods.sorted() == ["/shop.v1.Catalog/Chat", "/shop.v1.Catalog/GetItem", "/shop.v1.Catalog/GetItem", "/shop.v1.Catalog/ListItems"])
            let statuses = calls.filter { $0["grpc"]?["method"] == "/shop.v1.Catalog/GetItem" }.compactMap { $0["grpc"]?["status"]?.stringValue }
            #expect(statuses.sorted() == ["NOT_FOUND", "OK"], "\(listed.compactJSON)")
            let missing = try #require(calls.first { $0["grpc"]?["status"] == "NOT_FOUND" })
            #expect(missing["grpc"]?["message"] == "item nope does not exist")

            let listItems = try #require(calls.first { $0["grpc"]?["method"] == "/shop.v1.Catalog/ListItems" })
            #expect(listItems["grpc"]?["kind"] == "server streaming", "\(listItems.compactJSON)")
            let list = Int(try #require(listItems["id"]?.doubleValue))
            let detail = try Self.json(try await proxy.get("/__cassette/ui/api/conversation?id=\(list)"))
            #expect(detail["grpc"]?["kind"] == "server streaming", "\(detail.compactJSON)")
            #expect(detail["grpc"]?["responseType"] == "shop.v1.Item")
            #expect(detail["grpc"]?["trailers"]?.arrayValue?.contains { $0[0] == "grpc-status" && $0[1] == "0" } == true, "\(detail.compactJSON)")
            let timeline = try #require(detail["timeline"]?.arrayValue)
            let request = try #require(timeline.first)
            #expect(request["direction"] == "client")
            #expect(request["decoded"] == "shop.v1.ListItemsRequest", "\(request.compactJSON)")
            let replies = timeline.filter { $0["direction"] == "server" }
            #expect(replies.count == 2, "\(detail.compactJSON)")
            let reply = try JSONValue(parsing: Data((replies[1]["payload"]?["text"]?.stringValue ?? "").utf8))
            #expect(reply["name"] == "Neuromancer", "\(replies[1].compactJSON)")
            #expect(reply["priceCents"] == "999")
            #expect(timeline.contains { $0["kind"] == "end of stream" && $0["direction"] == "client" })

            // A bidirectional call: messages both ways, in order of their offsets.
            let chat = Int(try #require(calls.first { $0["grpc"]?["method"] == "/shop.v1.Catalog/Chat" }?["id"]?.doubleValue))
            let chatDetail = try Self.json(try await proxy.get("/__cassette/ui/api/conversation?id=\(chat)"))
            let directions = chatDetail["timeline"]?.arrayValue?.filter { $0["kind"] == "message" }.compactMap { $0["direction"]?.stringValue } ?? []
            #expect(Set(directions) == ["client", "server"], "\(chatDetail.compactJSON)")
        }
        let report = try await workspace.run("report", "--html", "report.html", "--db", store)
        #expect(report.status == 0, "\(report)")
        let html = try String(contentsOfFile: workspace.path("report.html"), encoding: .utf8)
        #expect(html.contains(#""decoded":"shop.v1.Item""#))
        #expect(html.contains(#""method":"/shop.v1.Catalog/ListItems""#))
    }

    @Test("without descriptors the UI shows each message as protoc --decode_raw does")
    func uiShowsRawWithoutDescriptors() async throws {
        try await record("get", descriptors: false)
        try await withInProcessReplayer(store: store) { proxy in
            let listed = try Self.json(try await proxy.get("/__cassette/ui/api/conversations"))
            let id = Int(try #require(listed["conversations"]?[0]?["id"]?.doubleValue))
            let detail = try Self.json(try await proxy.get("/__cassette/ui/api/conversation?id=\(id)"))
            let reply = try #require(detail["timeline"]?.arrayValue?.first { $0["direction"] == "server" })
            #expect(reply["decoded"] == "raw", "\(detail.compactJSON)")
            #expect(reply["payload"]?["text"]?.stringValue?.contains(#"2: "Dune""#) == true, "\(reply.compactJSON)")
        }
    }

    @Test("a session's journal lists its calls with method, status and hit or miss; the Live view keeps the miss")
    func journalAndLiveView() async throws {
        try await record("get,list")
        try await withInProcessReplayer(store: store) { proxy in
            let session = try await proxy.openSession("dev")
            let calls = try await GRPCPeers.runClient("get,never", against: session.baseURL)
            #expect(calls.map(\.code) == ["OK", "NOT_FOUND"], "\(calls.map(\.line.compactJSON))")
            let entries = try await session.requests()
            #expect(entries.count == 2, "\(entries)")
            #expect(entries.map { $0["method"] as? String } == ["POST", "POST"])
            #expect(entries.map { $0["path"] as? String } == ["/shop.v1.Catalog/GetItem", "/shop.v1.Catalog/GetItem"])
            #expect(entries.map { $0["source"] as? String } == ["hit", "miss"])
            let grpc = entries.compactMap { $0["grpc"] as? [String: Any] }
            #expect(grpc.map { $0["status"] as? String } == ["OK", "NOT_FOUND"], "\(entries)")
            #expect((grpc.last?["message"] as? String)?.contains("no recording of /shop.v1.Catalog/GetItem") == true, "\(entries)")
            let ended = try await session.end(strict: true)
            #expect(ended.statusCode == 409, "\(ended.bodyText)")
            let misses = try ended.jsonObject()["missed"] as? [[String: Any]] ?? []
            #expect(misses.map { $0["key"] as? String } == ["POST /shop.v1.Catalog/GetItem"], "\(misses)")

            // A miss is kept for a Live view opened later.
            let live = try await ExternalTool.run(
                ["curl", "-s", "-N", "--max-time", "2", proxy.url("/__cassette/ui/api/live").absoluteString], cwd: workspace.directory)
            let event = try #require(
                live.stdout.split(separator: "\n").first { $0.hasPrefix("data: ") && $0.contains("/shop.v1.Catalog/GetItem") }, "\(live.stdout)")
            let parsed = try JSONValue(parsing: Data(event.dropFirst(6).utf8))
            #expect(parsed["tag"] == "miss")
            #expect(parsed["method"] == "POST")
            #expect(parsed["grpc"]?["status"] == "NOT_FOUND", "\(parsed.compactJSON)")
            #expect(parsed["session"] == .string(session.id))
        }
    }

    @Test("the summary counts gRPC calls apart from WebSocket conversations; --track-usage marks only the calls replay served")
    func summaryAndUsage() async throws {
        let recorded = try await record("get,missing,list")
        #expect(recorded.contains { $0.contains("gRPC calls recorded 3, replayed 0, missed 0") && !$0.contains("WebSocket") }, "\(recorded)")
        let beforeReplay = Date().formatted(.iso8601)
        let replayed = try await withInProcessReplayer(store: store, arguments: ["--track-usage"]) { proxy in
            let calls = try await GRPCPeers.runClient("get,never", against: proxy.url(""))
            #expect(calls.map(\.code) == ["OK", "NOT_FOUND"], "\(calls.map(\.line.compactJSON))")
            _ = await proxy.stop()
            return proxy.outputLines
        }
        let summary = try #require(replayed.first { $0.hasPrefix("recorded ") }, "\(replayed)")
        #expect(summary.contains("missed 0, gRPC calls recorded 0, replayed 1, missed 1"), "\(summary)")
        #expect(summary.contains("usage saved for 0 recordings and 1 gRPC call"), "\(summary)")
        #expect(summary.contains("unused gRPC methods 1") && !summary.contains("WebSocket"), "\(summary)")
        #expect(replayed.contains("  unused: gRPC /shop.v1.Catalog/ListItems"), "\(replayed)")

        let opened = try await CassetteStore.open(path: store, access: .readOnly)
        let usage = try await opened.conversationUsage(cassette: "dev")
        let calls = try await opened.conversations(cassette: "dev")
        try await opened.close()
        // Only the call that answered `get` is used: not its method's NOT_FOUND recording, not ListItems.
        let used = calls.filter { $0.id.map { usage[$0] != nil } ?? false }
        #expect(used.count == 1, "\(usage)")
        #expect(used.first.map { GRPCCallTextProbe.status(of: $0) } == "OK")
        #expect(used.first?.key == "POST /shop.v1.Catalog/GetItem")
        let unused = try await workspace.run("list", "--db", store, "--unused-since", beforeReplay)
        #expect(unused.stdout.contains("2 gRPC calls of 3 match --unused-since \(beforeReplay)."), "\(unused)")
        #expect(unused.stdout.contains(#"NOT_FOUND "item nope does not exist""#) && unused.stdout.contains("/shop.v1.Catalog/ListItems"), "\(unused)")
    }

    @Test("diff --fixtures compares each method's file with its recordings: a field the upstream stopped sending is drift, in the Drift view too")
    func driftAgainstMethodFixtures() async throws {
        try await record("get,list")
        let fixtures = workspace.path("fixtures")
        let export = try await workspace.run("export", "--fixtures", fixtures, "--db", store)
        #expect(export.status == 0, "\(export)")
        let same = try await workspace.run("diff", "--fixtures", fixtures, "--db", store)
        // Each method's file covers its method: no drift, and no endpoint left without a fixture.
        #expect(same.status == 0, "\(same)")
        #expect(same.stdout.contains("0 errors, 0 warnings, 0 notes in 0 endpoints (2 fixtures, 2 recorded endpoints)"), "\(same)")

        let drifted = workspace.path("drifted.db")
        try await record("get,list", drift: true, into: drifted)
        let diff = try await workspace.run("diff", "--fixtures", fixtures, "--db", drifted)
        #expect(diff.status != 0, "\(diff)")
        #expect(diff.stdout.contains("grpc/shop.v1.Catalog/GetItem.json"), "\(diff.stdout)")
        #expect(diff.stdout.contains("$.labels"), "\(diff.stdout)")
        #expect(diff.stdout.contains("grpc/shop.v1.Catalog/ListItems.json"), "\(diff.stdout)")

        let report = try await workspace.run("report", "--html", "drift.html", "--db", drifted, "--fixtures", fixtures)
        #expect(report.status == 0, "\(report)")
        let html = try String(contentsOfFile: workspace.path("drift.html"), encoding: .utf8)
        #expect(html.contains("grpc/shop.v1.Catalog/GetItem.json"), "the Drift view compares the method's file")
        #expect(html.contains("$.labels"))
    }
}

/// A call's status by name, as the end of its recording says.
private enum GRPCCallTextProbe {
    static func status(of call: Conversation) -> String {
        guard case .closed(_, let code, _) = call.end else { return "cut" }
        return code.flatMap(GRPCStatusCode.init(rawValue:))?.name ?? "no status"
    }
}
