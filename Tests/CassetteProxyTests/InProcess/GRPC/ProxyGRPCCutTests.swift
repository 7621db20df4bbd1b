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

    @Test("SIGTERM with a grpcio client holding its bidi stream open: UNAVAILABLE, and the recorder process exits with the call stored as cut")
    func recorderProcessStopsWithAStreamHeldOpen() async throws {
        let directory = try TemporaryDirectory(prefix: "grpc-protoset")
        let protoset = try await GRPCPeers.protoset(in: directory).path
        try await GRPCPeers.withServer { upstream in
            try await withRecorder(upstream: upstream, store: store, arguments: ["--protoset", protoset]) { recorder in
                // `linger` keeps the client process, and so its connection, alive after the call.
                try await GRPCPeers.withClient("hold-open,linger", against: recorder.url) { client in
                    try await client.waitForOutput("the echo of the first message") { $0.contains(#""held""#) }
                    #expect(try await recorder.stop() == .exited(0), "\(recorder.process.standardError)")
                    try await client.waitForOutput("the call's status") { $0.contains(#""code""#) }
                    // The recorder did not wait for the client to go away.
                    #expect(client.exitStatus == nil)
                    let calls = try GRPCPeers.calls(in: client.standardOutput)
                    #expect(calls.map(\.code) == ["UNAVAILABLE"], "\(client.standardOutput)")
                    #expect(calls.first?.line["details"]?.stringValue?.contains("the recorder is shutting down") == true, "\(client.standardOutput)")
                }
                #expect(recorder.outputLines.contains { $0.hasPrefix("POST /shop.v1.Catalog/Chat 200 ") && $0.hasSuffix("gRPC UNAVAILABLE recorded") })
            }
        }
        let (call, schema) = try await storedChat()
        #expect(call.end == .cut, "\(call.end)")
        #expect(texts(call, schema) == ["hi", "echo: hi"])
    }

    @Test("a client that never half-closes nor resets gets the trailers, then RST_STREAM NO_ERROR, so the recorder's stop does not wait out the grace period")
    func aStubbornClientIsResetAfterItsTrailers() async throws {
        let directory = try TemporaryDirectory(prefix: "grpc-protoset")
        let protoset = try await GRPCPeers.protoset(in: directory).path
        try await GRPCPeers.withServer { upstream in
            try await withRecorder(upstream: upstream, store: store, arguments: ["--protoset", protoset]) { recorder in
                try await GRPCPeers.withStubbornClient(against: recorder.url) { client in
                    try await client.waitForOutput("the echo") { $0.contains(#""event": "data""#) }
                    #expect(try await recorder.stop() == .exited(0), "\(recorder.process.standardError)")
                    try await client.waitForOutput("the connection's end") { $0.contains(#""event": "closed""#) }
                    let events = try client.standardOutput.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
                    let names = events.compactMap { $0["event"]?.stringValue }
                    // The trailers, the reset right after them (RFC 9113 §8.1), then the graceful GOAWAYs.
                    let trailers = try #require(names.firstIndex(of: "trailers"), "\(client.standardOutput)")
                    #expect(events[trailers]["fields"]?["grpc-status"] == "14", "\(client.standardOutput)")
                    #expect(names.indices.contains(trailers + 1) && names[trailers + 1] == "reset", "\(client.standardOutput)")
                    #expect(events.first { $0["event"] == "reset" }?["code"] == "NO_ERROR", "\(client.standardOutput)")
                    #expect(names.firstIndex(of: "goaway").map { $0 > trailers } ?? true, "the trailers go out before any GOAWAY: \(client.standardOutput)")
                }
            }
        }
        let (call, _) = try await storedChat()
        #expect(call.end == .cut, "\(call.end)")
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
