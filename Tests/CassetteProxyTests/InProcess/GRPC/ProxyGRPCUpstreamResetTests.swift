import Foundation
import TestSupport
import Testing
import WellPlateCore

/// An upstream that resets one gRPC stream with RST_STREAM while its connection and other calls
/// go on (PyPI's `h2` as the server, `grpcio` as the client): the client gets what came, then the
/// status gRPC reads the reset as, with a message naming it; the call is stored with what came,
/// ended by the upstream's reset; the other call is recorded as usual; a replay with the upstream
/// stopped gives the same.
@Suite("gRPC streams the upstream resets keep what passed and end with the reset's status, live and on replay")
final class ProxyGRPCUpstreamResetTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("grpc.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// Records the grpcio client's `scenario` through the reset upstream: the client's calls, the
    /// upstream's events and the proxy's request log.
    private func record(_ scenario: String) async throws -> (calls: [GRPCPeers.Call], events: [String], logged: [String]) {
        let directory = try TemporaryDirectory(prefix: "grpc-protoset")
        let protoset = try await GRPCPeers.protoset(in: directory).path
        return try await GRPCResetUpstream.with { upstream, events in
            try await withInProcessRecorder(upstream: upstream, store: store, arguments: ["--protoset", protoset]) { proxy in
                let calls = try await GRPCPeers.runClient(scenario, against: proxy.url(""))
                _ = await proxy.stop()
                return (calls, events(), proxy.outputLines.filter { $0.hasPrefix("POST ") })
            }
        }
    }

    private func replay(_ scenario: String) async throws -> [GRPCPeers.Call] {
        try await withInProcessReplayer(store: store) { replayer in try await GRPCPeers.runClient(scenario, against: replayer.url("")) }
    }

    private func stored(_ path: String) async throws -> ([Conversation], ProtoSchema) {
        let opened = try await CassetteStore.open(path: store, access: .readOnly)
        let calls = try await opened.conversations(cassette: "dev").filter { $0.key == "POST \(path)" }.sorted { $0.sequence < $1.sequence }
        let schema = try await opened.protoSchema()
        try await opened.close()
        return (calls, schema)
    }

    /// The `id`s of the items the upstream sent in `call`.
    private func replyIDs(_ call: Conversation, _ schema: ProtoSchema) -> [String] {
        let path = String(call.key.dropFirst("POST ".count))
        return call.messages.filter { $0.isData && $0.direction == .server }.map { message in
            schema.jsonValue(message.payload, path: path, direction: .response)?["id"]?.stringValue ?? "?"
        }
    }

    @Test("reset after two messages: the client gets both, then INTERNAL naming the reset; the other call meanwhile is recorded; replay gives the same")
    func resetAfterTwoMessages() async throws {
        let step = "list-reset:INTERNAL_ERROR"
        let (calls, events, logged) = try await record(step)
        let call = try #require(calls.first)
        #expect(call.code == "INTERNAL", "\(call.line.compactJSON)")
        #expect(call.line["details"]?.stringValue == "cassette: the upstream reset the call's stream (RST_STREAM INTERNAL_ERROR)", "\(call.line.compactJSON)")
        #expect(call.line["received"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["b1", "b2"], "\(call.line.compactJSON)")
        #expect(call.line["unary"]?["code"] == .string("OK"), "\(call.line.compactJSON)")
        #expect(call.line["unary"]?["body"]?["id"] == .string("b2"), "\(call.line.compactJSON)")
        // The upstream answered the unary call while the reset stream was open, then reset it.
        #expect(events.count == 2, "\(events)")
        #expect(events.first?.hasPrefix("answered GetItem b2") == true, "\(events)")
        #expect(events.last?.hasPrefix("reset ListItems") == true && events.last?.hasSuffix("with INTERNAL_ERROR after 2 messages") == true, "\(events)")
        #expect(logged.contains { $0.hasPrefix("POST /shop.v1.Catalog/ListItems 200 ") && $0.hasSuffix(" gRPC INTERNAL recorded") }, "\(logged)")
        #expect(logged.contains { $0.hasPrefix("POST /shop.v1.Catalog/GetItem 200 ") && $0.hasSuffix(" gRPC OK recorded") }, "\(logged)")

        let (lists, schema) = try await stored("/shop.v1.Catalog/ListItems")
        let list = try #require(lists.first)
        #expect(lists.count == 1)
        #expect(list.end == .dropped(by: .server, reset: HTTP2ResetCode(rawValue: 2)), "\(list.end)")
        #expect(replyIDs(list, schema) == ["b1", "b2"])
        #expect(
            list.grpc?.responseHeaders?.contains { $0.name.canonicalName == "x-served-by" && $0.value == "h2-reset-peer" } == true,
            "\(String(describing: list.grpc))")
        let (gets, _) = try await stored("/shop.v1.Catalog/GetItem")
        #expect(gets.count == 1)
        #expect(gets.first?.end == .closed(by: .server, code: 0, reason: ""), "\(String(describing: gets.first?.end))")
        #expect(gets.first.map { replyIDs($0, schema) } == ["b2"])

        let show = try await workspace.run("show", "/shop.v1.Catalog/ListItems", "--db", store)
        #expect(show.status == 0, "\(show)")
        #expect(show.stdout.contains(#"<- {"id":"b2","name":"Neuromancer""#), "\(show.stdout)")
        #expect(show.stdout.contains("ended: upstream reset (RST_STREAM INTERNAL_ERROR)"), "\(show.stdout)")

        let replayed = try await replay(step)
        #expect(replayed.map(\.line) == calls.map(\.line), "\(replayed.map(\.line.compactJSON))")
    }

    @Test(
        "reset before any response HEADERS: a gRPC status gRPC reads the code as (REFUSED_STREAM UNAVAILABLE, CANCEL CANCELLED), stored without headers; replay gives the same"
    )
    func resetBeforeHeaders() async throws {
        let scenario = "list-early:REFUSED_STREAM,list-early:CANCEL"
        let (calls, events, logged) = try await record(scenario)
        #expect(calls.map(\.code) == ["UNAVAILABLE", "CANCELLED"], "\(calls.map(\.line.compactJSON))")
        #expect(
            calls.map { $0.line["details"]?.stringValue ?? "" } == [
                "cassette: the upstream reset the call's stream (RST_STREAM REFUSED_STREAM)",
                "cassette: the upstream reset the call's stream (RST_STREAM CANCEL)",
            ])
        #expect(calls.allSatisfy { $0.line["received"] == .array([]) }, "\(calls.map(\.line.compactJSON))")
        #expect(events.count == 2 && events.allSatisfy { $0.hasSuffix("before its HEADERS") }, "\(events)")
        #expect(logged.filter { $0.hasSuffix(" gRPC UNAVAILABLE recorded") || $0.hasSuffix(" gRPC CANCELLED recorded") }.count == 2, "\(logged)")

        let (lists, _) = try await stored("/shop.v1.Catalog/ListItems")
        #expect(lists.map(\.end) == [.dropped(by: .server, reset: HTTP2ResetCode(rawValue: 7)), .dropped(by: .server, reset: HTTP2ResetCode(rawValue: 8))])
        #expect(lists.allSatisfy { $0.grpc?.responseHeaders == nil && !$0.messages.contains { $0.direction == .server } }, "\(lists)")
        let show = try await workspace.run("show", "/shop.v1.Catalog/ListItems", "--db", store)
        #expect(show.stdout.contains("no response headers"), "\(show.stdout)")
        #expect(show.stdout.contains("ended: upstream reset (RST_STREAM REFUSED_STREAM)"), "\(show.stdout)")

        let replayed = try await replay(scenario)
        #expect(replayed.map(\.line) == calls.map(\.line), "\(replayed.map(\.line.compactJSON))")
    }

    @Test("reset with the client's side still open: the client gets the status at once, live and on replay, without ending its side first")
    func resetWhileTheClientSends() async throws {
        let (calls, events, _) = try await record("chat-reset")
        let call = try #require(calls.first)
        #expect(call.code == "INTERNAL", "\(call.line.compactJSON)")
        #expect(call.line["details"]?.stringValue == "cassette: the upstream reset the call's stream (RST_STREAM INTERNAL_ERROR)", "\(call.line.compactJSON)")
        #expect(call.line["received"] == .array([.object(["text": "echo: hi"])]), "\(call.line.compactJSON)")
        #expect(call.line["waitedForTheClient"] == .bool(false), "\(call.line.compactJSON)")
        #expect(events.count == 1 && events.first?.hasSuffix("its client still sending") == true, "\(events)")

        let (chats, schema) = try await stored("/shop.v1.Catalog/Chat")
        let chat = try #require(chats.first)
        #expect(chat.end == .dropped(by: .server, reset: HTTP2ResetCode(rawValue: 2)), "\(chat.end)")
        let texts = chat.messages.map { message in
            message.kind == .close
                ? "(end)"
                : schema.jsonValue(message.payload, path: "/shop.v1.Catalog/Chat", direction: message.direction == .client ? .request : .response)?["text"]?
                    .stringValue ?? "?"
        }
        #expect(texts == ["hi", "echo: hi", "reset"], "\(texts)")

        // Before, the replay held the end until the client's half-close, which the recording never had.
        let replayed = try await replay("chat-reset")
        #expect(replayed.map(\.line) == calls.map(\.line), "\(replayed.map(\.line.compactJSON))")
    }

    @Test("a reset a while after the last message: its moment is stored, and a replay with recorded timing gives the status no sooner")
    func resetAWhileAfterTheLastMessage() async throws {
        let step = "list-late:INTERNAL_ERROR:400"
        let (calls, events, _) = try await record(step)
        let call = try #require(calls.first)
        #expect(call.code == "INTERNAL", "\(call.line.compactJSON)")
        #expect(events.count == 1 && events.first?.hasSuffix("400 ms after 2 messages") == true, "\(events)")

        // The upstream reset 400 ms after it had the client's whole request, which the proxy
        // had first: the end's offset is at least that much after the client's end.
        let (lists, schema) = try await stored("/shop.v1.Catalog/ListItems")
        let list = try #require(lists.first)
        #expect(replyIDs(list, schema) == ["b1", "b2"])
        let clientEnd = try #require(list.messages.first { $0.direction == .client && $0.kind == .close })
        let end = try #require(list.grpc?.endOffsetMilliseconds, "\(String(describing: list.grpc))")
        #expect(end - clientEnd.offsetMilliseconds >= 400, "ended at \(end) ms, the client at \(clientEnd.offsetMilliseconds) ms")

        // Before, the replayed status came right after b2, which the upstream sent at once.
        let replayed = try #require(try await replay(step).first)
        #expect(replayed.code == "INTERNAL", "\(replayed.line.compactJSON)")
        #expect(replayed.line["received"] == call.line["received"], "\(replayed.line.compactJSON)")
        #expect(replayed.line["details"] == call.line["details"], "\(replayed.line.compactJSON)")
        let show = try await workspace.run("show", "/shop.v1.Catalog/ListItems", "--db", store)
        #expect(show.stdout.contains(String(format: "%8.1f ms ended: upstream reset (RST_STREAM INTERNAL_ERROR)", end)), "\(show.stdout)")

        let after = try #require(replayed.line["statusAfterMs"]?.doubleValue, "\(replayed.line.compactJSON)")
        #expect(after >= 400, "the replayed status came \(after) ms after the call began")
    }
}
