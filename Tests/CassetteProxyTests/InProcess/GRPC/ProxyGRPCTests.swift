import Foundation
import TestSupport
import Testing
import WellPlateCore

/// gRPC calls through the proxy between PyPI's `grpcio` peers (Tests/Peers/grpc_peer.py): the
/// grpcio client records through `cassette record` from the grpcio server, then replays with the
/// server stopped, and gets the same answers: unary with metadata and trailers, server and client
/// streaming, bidirectional, an error status with custom trailing metadata, gzip both ways.
@Suite("gRPC calls recorded and replayed with grpcio")
final class ProxyGRPCTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("grpc.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    private let scenario = "get,missing,other,slow,list,count,chat"

    /// Records `scenario` through the proxy from a live grpcio server; returns what the client got.
    private func record(gzip: Bool = false, protoset: Bool = true, reflection: Bool = false) async throws -> [GRPCPeers.Call] {
        let directory = try TemporaryDirectory(prefix: "grpc-protoset")
        let protosetArguments = protoset ? ["--protoset", try await GRPCPeers.protoset(in: directory).path] : []
        return try await GRPCPeers.withServer(reflection: reflection, gzip: gzip) { upstream in
            try await withInProcessProxy(["record", "--upstream", upstream.absoluteString, "--port", "0", "--db", store] + protosetArguments) { proxy in
                let calls = try await GRPCPeers.runClient(scenario, against: proxy.url(""), gzip: gzip)
                _ = await proxy.stop()
                return calls
            }
        }
    }

    private func replay(_ steps: String, gzip: Bool = false, arguments: [String] = []) async throws -> [GRPCPeers.Call] {
        try await withInProcessReplayer(store: store, arguments: arguments) { replayer in
            try await GRPCPeers.runClient(steps, against: replayer.url(""), gzip: gzip)
        }
    }

    @Test("the four kinds of call, an error with trailing metadata, and headers replay offline as recorded")
    func recordThenReplayOffline() async throws {
        let recorded = try await record()
        #expect(recorded.map(\.code) == ["OK", "NOT_FOUND", "OK", "OK", "OK", "OK", "OK"], "\(recorded.map(\.line.compactJSON))")
        #expect(recorded.first?.line["body"]?["servedBy"] == .string("grpcio-peer"))
        let replayed = try await replay(scenario)
        #expect(replayed.map(\.line) == recorded.map(\.line), "\(replayed.map(\.line.compactJSON))")
        #expect(replayed[1].line["trailing"]?["x-trace-bin"] == .string("0001fe"))
    }

    @Test("gzip messages are stored inflated and compressed again for a client that accepts gzip")
    func gzipBothWays() async throws {
        let recorded = try await record(gzip: true)
        #expect(recorded.allSatisfy { $0.code != "INTERNAL" }, "\(recorded.map(\.line.compactJSON))")
        // Stored inflated: the message decodes as protobuf JSON from the store alone.
        let store = try await CassetteStore.open(path: self.store, access: .readOnly)
        let calls = try await store.conversations(cassette: "dev").filter { $0.key == "POST /shop.v1.Catalog/GetItem" }
        let schema = try await store.protoSchema()
        try await store.close()
        let reply = try #require(calls.compactMap { $0.messages.first { $0.direction == .server } }.first)
        #expect(schema.jsonValue(reply.payload, path: "/shop.v1.Catalog/GetItem", direction: .response)?["name"] != nil)
        for gzip in [true, false] {
            let replayed = try await replay(scenario, gzip: gzip)
            #expect(replayed.map(\.line) == recorded.map(\.line), "gzip \(gzip): \(replayed.map(\.line.compactJSON))")
        }
    }

    @Test("a request not recorded is a gRPC NOT_FOUND naming the nearest recording, never an HTTP error")
    func missIsAGRPCError() async throws {
        _ = try await record()
        let calls = try await replay("never,chat-changed")
        #expect(calls[0].code == "NOT_FOUND", "\(calls[0].line.compactJSON)")
        let details = calls[0].line["details"]?.stringValue ?? ""
        #expect(details.contains("no recording of /shop.v1.Catalog/GetItem for request {\"id\":\"zz\",\"quantity\":2}"), "\(details)")
        #expect(details.contains("differs in id"), "\(details)")
        #expect(calls[1].code == "FAILED_PRECONDITION", "\(calls[1].line.compactJSON)")
        #expect(calls[1].line["details"]?.stringValue?.contains(#"expected {"text":"twice","turn":1}"#) == true, "\(calls[1].line.compactJSON)")
    }

    @Test("grpc-timeout shorter than the recorded latency is DEADLINE_EXCEEDED on replay")
    func deadlineOnReplay() async throws {
        _ = try await record()
        let calls = try await replay("slow-short")
        #expect(calls.map(\.code) == ["DEADLINE_EXCEEDED"], "\(calls.map(\.line.compactJSON))")
    }

    @Test("--grpc-timing fast sends the recorded answer at once, so the same short grpc-timeout is met")
    func fastTimingMeetsTheDeadline() async throws {
        let recorded = try await record()
        let slow = try #require(recorded.first { $0.line["step"] == .string("slow") })
        let calls = try await replay("slow-short", arguments: ["--grpc-timing", "fast"])
        #expect(calls.map(\.code) == ["OK"], "\(calls.map(\.line.compactJSON))")
        #expect(calls.first?.line["body"] == slow.line["body"])
        let half = try await replay("slow-short", arguments: ["--grpc-timing", "0.9"])
        #expect(half.map(\.code) == ["DEADLINE_EXCEEDED"], "\(half.map(\.line.compactJSON))")
    }

    @Test("--grpc-timing fast (unary calls answered at the connection) gives the answers recorded timing gives, each logged and counted once")
    func fastTimingGivesTheRecordedAnswers() async throws {
        let recorded = try await record(gzip: true)
        let paced = try await replay(scenario, gzip: true)
        #expect(paced.map(\.line) == recorded.map(\.line))
        for gzip in [true, false] {
            let (fast, summary, lines) = try await withInProcessReplayer(store: store, arguments: ["--grpc-timing", "fast"]) { replayer in
                let calls = try await GRPCPeers.runClient(scenario, against: replayer.url(""), gzip: gzip)
                let stopped = await replayer.stop()
                return (calls, stopped.summary, replayer.outputLines)
            }
            #expect(fast.map(\.line) == paced.map(\.line), "gzip \(gzip)")
            let logged = lines.filter { $0.hasPrefix("POST /shop.v1.Catalog/") }
            #expect(logged.filter { $0.hasSuffix("gRPC OK replayed") }.count == 6, "\(logged)")
            #expect(logged.filter { $0.hasSuffix("gRPC NOT_FOUND replayed") }.count == 1, "\(logged)")
            #expect(summary.first?.contains("gRPC calls recorded 0, replayed 7, missed 0") == true, "\(summary)")
        }
    }
}

/// What a gRPC client sends wrong, and what the tools make of recorded calls.
@Suite("gRPC bad input and the tools on recorded calls")
final class ProxyGRPCToolsTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("grpc.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    private func record(_ scenario: String, reflection: Bool = false, drift: Bool = false, into store: String? = nil) async throws {
        let directory = try TemporaryDirectory(prefix: "grpc-protoset")
        let protoset = reflection ? [] : ["--protoset", try await GRPCPeers.protoset(in: directory).path]
        let store = store ?? self.store
        try await GRPCPeers.withServer(reflection: reflection, drift: drift) { upstream in
            try await withInProcessProxy(["record", "--upstream", upstream.absoluteString, "--port", "0", "--db", store] + protoset) { proxy in
                _ = try await GRPCPeers.runClient(scenario, against: proxy.url(""))
                _ = await proxy.stop()
            }
        }
    }

    /// curl over HTTP/2 with prior knowledge: the status line and headers, trailers included.
    private func curl(_ url: URL, body: String) async throws -> String {
        let result = try await ExternalTool.run(
            [
                "curl", "-s", "--http2-prior-knowledge", "-H", "content-type: application/grpc", "--data-binary", body, "-D", "-", "-o", "/dev/null",
                url.absoluteString,
            ],
            cwd: workspace.directory)
        return result.stdout
    }

    @Test("a non-gRPC body is INTERNAL, an unknown method UNIMPLEMENTED, an oversized message RESOURCE_EXHAUSTED, all over HTTP 200")
    func badInput() async throws {
        try await record("get")
        try await withInProcessReplayer(store: store, arguments: ["--grpc-max-message", "50"]) { replayer in
            let broken = try await curl(replayer.url("/shop.v1.Catalog/GetItem"), body: "not grpc at all")
            #expect(broken.hasPrefix("HTTP/2 200"), "\(broken)")
            #expect(broken.contains("grpc-status: 13"), "\(broken)")
            #expect(broken.contains("not gRPC framing"), "\(broken)")
            let unknown = try await curl(replayer.url("/shop.v1.Nothing/Here"), body: "")
            #expect(unknown.contains("grpc-status: 12"), "\(unknown)")
            #expect(unknown.contains("recorded: /shop.v1.Catalog/GetItem"), "\(unknown)")
            let calls = try await GRPCPeers.runClient("big,get", against: replayer.url(""))
            #expect(calls.map(\.code) == ["RESOURCE_EXHAUSTED", "OK"], "\(calls.map(\.line.compactJSON))")
        }
    }

    @Test("a token in a message is stored redacted and re-encoded, the live call carrying it replays, audit finds nothing left")
    func tokenInMessageIsRedacted() async throws {
        let token = "ghp_Zq8xT2vLm4Rk9WbN3yHc7Pd5Fg1Js6Ua0EoK"  // as grpc_peer.py's `secret` step sends it
        try await record("secret")
        let opened = try await CassetteStore.open(path: store, access: .readOnly)
        let calls = try await opened.conversations(cassette: "dev").filter { $0.key == "POST /shop.v1.Catalog/Chat" }
        let schema = try await opened.protoSchema()
        try await opened.close()
        let call = try #require(calls.first)
        #expect(call.messages.filter(\.isData).count == 2)
        #expect(!call.messages.contains { $0.payload.range(of: Data(token.utf8)) != nil }, "the token reached the store")
        // Re-encoded with the right length prefixes: both messages decode, with the token replaced.
        let request = try #require(call.messages.first { $0.direction == .client && $0.isData })
        let reply = try #require(call.messages.first { $0.direction == .server })
        let path = "/shop.v1.Catalog/Chat"
        #expect(schema.jsonValue(request.payload, path: path, direction: .request)?["text"] == .string("my token REDACTED"))
        #expect(schema.jsonValue(reply.payload, path: path, direction: .response)?["text"] == .string("echo: my token REDACTED"))
        // The live client still sends the real token, and its call replays.
        let replayed = try await withInProcessReplayer(store: store) { replayer in
            try await GRPCPeers.runClient("secret", against: replayer.url(""))
        }
        #expect(replayed.map(\.code) == ["OK"], "\(replayed.map(\.line.compactJSON))")
        #expect(replayed.first?.line["body"]?[0]?["text"] == .string("echo: my token REDACTED"), "\(replayed.map(\.line.compactJSON))")
        let audit = try await workspace.run("audit", "--db", store)
        #expect(audit.status == 0, "\(audit)")
        #expect(!audit.stdout.contains("GitHub"), "\(audit)")
    }

    @Test("a store that kept a token in a message: audit reports it, redact re-encodes the message without it")
    func redactRewritesStoredMessages() async throws {
        let token = "ghp_Zq8xT2vLm4Rk9WbN3yHc7Pd5Fg1Js6Ua0EoK"
        let path = "/shop.v1.Catalog/Chat"
        try await record("secret")
        // As an older recorder stored it: the token in both messages.
        let opened = try await CassetteStore.open(path: store, access: .readWrite)
        var conversations = try await opened.conversations(cassette: nil)
        let chat = try #require(conversations.firstIndex { $0.key == "POST \(path)" })
        for index in conversations[chat].messages.indices where conversations[chat].messages[index].isData {
            var writer = ProtoWireWriter()
            let side = conversations[chat].messages[index].direction
            writer.field(1, string: (side == .client ? "" : "echo: ") + "my token \(token)")
            conversations[chat].messages[index].payload = writer.data
        }
        _ = try await opened.importConversations(conversations, replacing: true)
        try await opened.close()
        let before = try await workspace.run("audit", "--db", store)
        #expect(before.status == 1, "\(before)")
        #expect(before.stdout.contains("GitHub personal access token"), "\(before)")

        let redact = try await workspace.run("redact", "--db", store)
        #expect(redact.status == 0, "\(redact)")
        let after = try await CassetteStore.open(path: store, access: .readOnly)
        let call = try #require(try await after.conversations(cassette: "dev").first { $0.key == "POST \(path)" })
        let schema = try await after.protoSchema()
        try await after.close()
        let texts = call.messages.filter(\.isData).map {
            schema.jsonValue($0.payload, path: path, direction: $0.direction == .client ? .request : .response)?["text"]
        }
        #expect(texts == [.string("my token REDACTED"), .string("echo: my token REDACTED")])
        let audit = try await workspace.run("audit", "--db", store)
        #expect(audit.status == 0, "\(audit)")
    }

    @Test("export --fixtures writes one file per method with its variants; show names the method and prints messages as JSON")
    func exportAndShow() async throws {
        try await record("get,missing,get,list")
        let fixtures = workspace.path("fixtures")
        let export = try await workspace.run("export", "--fixtures", fixtures, "--db", store)
        #expect(export.status == 0, "\(export)")
        let file = URL(fileURLWithPath: fixtures).appendingPathComponent("grpc/shop.v1.Catalog/GetItem.json")
        let fixture = try JSONValue(parsing: try Data(contentsOf: file))
        #expect(fixture["kind"] == .string("unary"))
        // Two calls with the same request make one variant.
        #expect(fixture["variants"]?.arrayValue?.count == 2, "\(fixture.compactJSON)")
        #expect(fixture["variants"]?[0]?["responses"]?[0]?["name"] == .string("Dune"))
        #expect(fixture["variants"]?[1]?["status"]?["name"] == .string("NOT_FOUND"))
        #expect(fixture["variants"]?[1]?["trailers"]?["x-reason"] == .string("no such item"))
        let show = try await workspace.run("show", "/shop.v1.Catalog/ListItems", "--db", store)
        #expect(show.status == 0, "\(show)")
        #expect(show.stdout.contains("gRPC /shop.v1.Catalog/ListItems (server streaming)"), "\(show.stdout)")
        #expect(show.stdout.contains(#"<- {"id":"b2","name":"Neuromancer""#), "\(show.stdout)")
        let list = try await workspace.run("list", "--db", store)
        #expect(list.stdout.contains("gRPC /shop.v1.Catalog/GetItem"), "\(list.stdout)")
        #expect(list.stdout.contains(#"NOT_FOUND "item nope does not exist""#), "\(list.stdout)")
    }

    @Test("without a protoset the upstream's server reflection gives the descriptors, kept in the store")
    func reflectionAtRecordTime() async throws {
        try await record("get", reflection: true)
        let opened = try await CassetteStore.open(path: store, access: .readOnly)
        let files = try await opened.protoFiles()
        try await opened.close()
        #expect(files.map(\.name) == ["google/protobuf/timestamp.proto", "shop.proto"])
        #expect(files.allSatisfy { $0.source.hasPrefix("reflection http://127.0.0.1:") })
        let show = try await workspace.run("show", "/shop.v1.Catalog/GetItem", "--db", store)
        #expect(show.stdout.contains("gRPC /shop.v1.Catalog/GetItem (unary)"), "\(show.stdout)")
        #expect(show.stdout.contains(#"-> {"id":"b1","quantity":2}"#), "\(show.stdout)")
    }

    @Test("schema and diff treat each method's messages as an endpoint's JSON: a field the upstream stopped sending is drift")
    func schemaAndDiffPerMethod() async throws {
        try await record("get,list")
        let drifted = workspace.path("drifted.db")
        try await record("get,list", drift: true, into: drifted)
        let schema = try await workspace.run("schema", "--db", store)
        #expect(schema.status == 0, "\(schema)")
        let schemas = try JSONValue(parsing: schema.stdout)
        #expect(schemas["POST /shop.v1.Catalog/ListItems"]?["properties"]?["priceCents"]?["type"] == .string("string"), "\(schema.stdout)")
        let diff = try await workspace.run("diff", "--db", store, "--against", drifted)
        #expect(diff.status != 0, "\(diff)")
        #expect(diff.stdout.contains("POST /shop.v1.Catalog/GetItem"), "\(diff.stdout)")
        #expect(diff.stdout.contains("$.labels  field not in drifted.db"), "\(diff.stdout)")
    }
}
