import Foundation
import TestSupport
import Testing
import WellPlateCore

/// Nothing already recorded is lost when a gRPC stream ends before its time: the recorder
/// stopping (SIGTERM) while a grpcio client's stream is open, or the grpcio server resetting
/// the stream, leaves the call in the store with the messages that passed.
@Suite("gRPC calls cut by the recorder's stop or reset by the upstream keep what passed")
final class ProxyGRPCCutTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("grpc.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    private func recorder<Result>(upstream: URL, _ body: (InProcessProxy) async throws -> Result) async throws -> Result {
        let directory = try TemporaryDirectory(prefix: "grpc-protoset")
        let protoset = try await GRPCPeers.protoset(in: directory).path
        return try await withInProcessProxy(["record", "--upstream", upstream.absoluteString, "--port", "0", "--db", store, "--protoset", protoset], body)
    }

    private func storedChat() async throws -> (Conversation, ProtoSchema) {
        let opened = try await CassetteStore.open(path: store, access: .readOnly)
        let calls = try await opened.conversations(cassette: "dev").filter { $0.key == "POST /shop.v1.Catalog/Chat" }
        let schema = try await opened.protoSchema()
        try await opened.close()
        #expect(calls.count == 1)
        return (try #require(calls.first), schema)
    }

    private func texts(_ call: Conversation, _ schema: ProtoSchema) -> [String] {
        call.messages.filter(\.isData).map { message in
            let direction: GRPCDirection = message.direction == .client ? .request : .response
            return schema.jsonValue(message.payload, path: "/shop.v1.Catalog/Chat", direction: direction)?["text"]?.stringValue ?? "?"
        }
    }

    @Test("a stream open when the recorder stops is stored with its messages, marked cut; the client gets UNAVAILABLE")
    func recorderStopsMidStream() async throws {
        let output = try await GRPCPeers.withServer { upstream in
            try await recorder(upstream: upstream) { proxy in
                try await GRPCPeers.withClient("hold", against: proxy.url("")) { client in
                    try await client.waitForOutput("the echo of the first message") { $0.contains(#""held""#) }
                    _ = await proxy.stop()
                    _ = try await client.waitForExit()
                    return client.standardOutput
                }
            }
        }
        let calls = try GRPCPeers.calls(in: output)
        #expect(calls.map(\.code) == ["UNAVAILABLE"], "\(output)")
        #expect(calls.first?.line["details"]?.stringValue?.contains("the recorder is shutting down") == true, "\(output)")
        let (call, schema) = try await storedChat()
        #expect(call.end == .cut, "\(call.end)")
        #expect(texts(call, schema) == ["hi", "echo: hi"])
        let show = try await workspace.run("show", "/shop.v1.Catalog/Chat", "--db", store)
        #expect(show.status == 0, "\(show)")
        #expect(show.stdout.contains(#"<- {"text":"echo: hi"}"#), "\(show.stdout)")
        #expect(show.stdout.contains("ended: cut"), "\(show.stdout)")
    }

    @Test(
        "a stream whose upstream goes away mid-call is stored with the messages so far, marked as the upstream's reset; the client gets UNAVAILABLE, live and on replay"
    )
    func upstreamGoesAwayMidStream() async throws {
        let calls = try await GRPCPeers.withServer { upstream in
            try await recorder(upstream: upstream) { proxy in
                try await GRPCPeers.runClient("chat-crash", against: proxy.url(""))
            }
        }
        // Not a bare reset, which grpcio reports as CANCELLED, as if the client had cancelled.
        #expect(calls.map(\.code) == ["UNAVAILABLE"], "\(calls.map(\.line.compactJSON))")
        #expect(
            calls.first?.line["details"] == .string("cassette: the upstream closed its connection before the call ended"), "\(calls.map(\.line.compactJSON))")
        let (call, schema) = try await storedChat()
        #expect(call.end == .dropped(by: .server), "\(call.end)")
        #expect(texts(call, schema) == ["hi", "echo: hi", "crash"], "\(texts(call, schema))")
        let show = try await workspace.run("show", "/shop.v1.Catalog/Chat", "--db", store)
        #expect(show.stdout.contains("ended: upstream reset"), "\(show.stdout)")
        let replayed = try await withInProcessReplayer(store: store) { replayer in try await GRPCPeers.runClient("chat-crash", against: replayer.url("")) }
        #expect(replayed.map(\.line) == calls.map(\.line), "\(replayed.map(\.line.compactJSON))")
    }
}
