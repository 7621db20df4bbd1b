import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import WellPlateCore

/// A gRPC call replayed turn by turn from its recordings, with the schema protoc wrote for the
/// test peers' service; and a call's heads and the descriptors kept in the store.
@Suite("gRPC calls replayed turn by turn and kept in the store")
final class GRPCReplayTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "grpc-replay")
    }

    private func schema() async throws -> ProtoSchema {
        try ProtoSchema(fileDescriptorSet: try Data(contentsOf: try await GRPCPeers.protoset(in: directory)))
    }

    private func request(_ id: String, quantity: UInt64? = nil) -> Data {
        var writer = ProtoWireWriter()
        if let quantity { writer.field(2, varint: quantity) }
        writer.field(1, string: id)
        return writer.data
    }

    private func call(_ path: String, _ events: [(ConversationSide, Data?, Double)]) -> Conversation {
        Conversation(
            cassette: "dev", url: path, key: "POST " + path, requestHeaders: [:], subprotocol: nil, extensions: nil,
            messages: events.map { side, payload, offset in
                ConversationMessage(direction: side, kind: payload == nil ? .close : .binary, payload: payload ?? Data(), offsetMilliseconds: offset)
            }, end: .closed(by: .server, code: 0, reason: ""),
            grpc: GRPCCallHeads(responseHeaders: [.contentType: "application/grpc"], trailers: [HTTPField.Name("grpc-status")!: "0"]))
    }

    @Test("the request picks the recording, compared by field; answers keep their recorded delays")
    func unaryPicksByRequest() async throws {
        let path = "/shop.v1.Catalog/GetItem"
        let recordings = [
            call(path, [(.client, request("b1", quantity: 2), 1), (.client, nil, 2), (.server, Data("dune".utf8), 52)]),
            call(path, [(.client, request("b2"), 1), (.client, nil, 2), (.server, Data("neuromancer".utf8), 12)]),
        ]
        var replay = GRPCReplay(path: path, recordings: recordings, schema: try await schema())
        #expect(replay.opening() == .answer([]))
        // Fields in another order, and the explicit default of quantity: still b2's recording.
        #expect(replay.receive(request("b2", quantity: 0)) == .answer([]))
        #expect(replay.clientEnded() == .answer([(Data("neuromancer".utf8), 10)]))
        #expect(replay.recording.messages.last?.payload == Data("neuromancer".utf8))
    }

    @Test("a request nothing was recorded for is NOT_FOUND naming the nearest recording and the field that differs")
    func missNamesNearest() async throws {
        let path = "/shop.v1.Catalog/GetItem"
        var replay = GRPCReplay(
            path: path, recordings: [call(path, [(.client, request("b1", quantity: 2), 1), (.server, Data(), 2)])], schema: try await schema())
        guard case .error(let code, let message) = replay.receive(request("b1", quantity: 3)) else {
            Issue.record("a different quantity was answered")
            return
        }
        #expect(code == .notFound)
        #expect(message.contains(#"{"id":"b1","quantity":2}"#))
        #expect(message.contains("differs in quantity"))
    }

    @Test("a changed message in a stream ends it with an error naming the message expected")
    func changedStreamMessage() async throws {
        let path = "/shop.v1.Catalog/Chat"
        func chat(_ text: String) -> Data {
            var writer = ProtoWireWriter()
            writer.field(1, string: text)
            return writer.data
        }
        let recording = call(path, [(.client, chat("hi"), 1), (.server, chat("echo: hi"), 3), (.client, chat("bye"), 10), (.server, chat("echo: bye"), 11)])
        var replay = GRPCReplay(path: path, recordings: [recording], schema: try await schema())
        #expect(replay.receive(chat("hi")) == .answer([(chat("echo: hi"), 2)]))
        guard case .error(let code, let message) = replay.receive(chat("thrice")) else {
            Issue.record("a changed message was answered")
            return
        }
        #expect(code == .failedPrecondition)
        #expect(message.contains(#"expected {"text":"bye"}, got {"text":"thrice"}"#))
    }

    @Test("a recording the upstream reset while its client still sent ends after its last client message; one that was cut waits for the client's end")
    func upstreamEndedHere() async throws {
        let path = "/shop.v1.Catalog/Chat"
        let schema = try await schema()
        var recording = call(
            path, [(.client, Data([0x0a, 0x02, 0x68, 0x69]), 1), (.server, Data([0x0a, 0x01, 0x65]), 2), (.client, Data([0x0a, 0x01, 0x72]), 3)])
        recording.end = .dropped(by: .server, reset: HTTP2ResetCode(rawValue: 2))
        var replay = GRPCReplay(path: path, recordings: [recording], schema: schema)
        _ = replay.receive(Data([0x0a, 0x02, 0x68, 0x69]))
        #expect(!replay.upstreamEndedHere)
        _ = replay.receive(Data([0x0a, 0x01, 0x72]))
        #expect(replay.upstreamEndedHere)
        recording.end = .cut
        var cut = GRPCReplay(path: path, recordings: [recording], schema: schema)
        _ = cut.receive(Data([0x0a, 0x02, 0x68, 0x69]))
        _ = cut.receive(Data([0x0a, 0x01, 0x72]))
        #expect(!cut.upstreamEndedHere)
    }

    @Test("a call's response HEADERS, trailers and descriptors are stored and read back")
    func storedHeadsAndDescriptors() async throws {
        let store = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        let path = "/shop.v1.Catalog/GetItem"
        var recorded = call(path, [(.client, request("nope"), 1), (.client, nil, 1)])
        recorded.grpc = GRPCCallHeads(
            responseHeaders: nil,
            trailers: [.contentType: "application/grpc", HTTPField.Name("grpc-status")!: "5", HTTPField.Name("x-trace-bin")!: "AAH+"])
        let stored = try await store.beginConversation(recorded)
        let id = try #require(stored.id)
        let read = try #require(try await store.conversation(id: id))
        #expect(read.grpc == recorded.grpc)
        #expect(read.grpc?.isTrailersOnly == true)
        #expect(read.messages == recorded.messages)

        let protoset = try Data(contentsOf: try await GRPCPeers.protoset(in: directory))
        let files = try ProtoSchema.files(ofDescriptorSet: protoset)
        #expect(try await store.storeProtoFiles(files, source: "protoset shop.protoset") == 2)
        let schema = try await store.protoSchema()
        #expect(schema.methods[path]?.outputType == "shop.v1.Item")
        try await store.close()
    }
}
