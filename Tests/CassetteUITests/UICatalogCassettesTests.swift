import CassetteUI
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore

/// `api/cassettes` counts what a cassette holds of every kind: HTTP recordings, gRPC calls and
/// WebSocket conversations, the bytes they store and when the last of them was recorded.
struct UICatalogCassettesTests {
    static func call(_ method: String, messages: [(ConversationSide, Int)], status: Int, at seconds: Double) -> Conversation {
        Conversation(
            cassette: "grpc", url: "/shop.v1.Catalog/\(method)", key: "POST /shop.v1.Catalog/\(method)", requestHeaders: [.contentType: "application/grpc"],
            subprotocol: nil, extensions: nil, recordedAt: Date(timeIntervalSince1970: seconds),
            messages: messages.enumerated().map { index, message in
                ConversationMessage(direction: message.0, kind: .binary, payload: Data(repeating: 7, count: message.1), offsetMilliseconds: Double(index))
            },
            end: .closed(by: .server, code: status, reason: ""),
            grpc: GRPCCallHeads(responseHeaders: nil, trailers: HTTPFields([HTTPField(name: HTTPField.Name("grpc-status")!, value: String(status))])))
    }

    @Test func aCassetteOfGRPCCallsOnlyCountsItsCallsTheirBytesAndTimeAndNamesWhatItWasRecordedFrom() async throws {
        let workspace = try CLIWorkspace()
        _ = try await workspace.record(
            [
                Interaction(
                    cassette: "http", method: .get, url: "https://api.example.com/items", key: "GET /items", statusCode: 200, responseBody: Data("12345".utf8),
                    recordedAt: Date(timeIntervalSince1970: 1_000))
            ], cassettes: [CassetteInfo(name: "grpc", upstream: "http://127.0.0.1:50051")])
        let store = try await CassetteStore.open(path: workspace.storePath, access: .readWrite)
        let calls = [
            Self.call("GetItem", messages: [(.client, 4), (.server, 30)], status: 0, at: 2_000),
            Self.call("GetItem", messages: [(.client, 6)], status: 5, at: 3_000),
            Self.call("ListItems", messages: [(.client, 3), (.server, 20), (.server, 25)], status: 0, at: 2_500),
        ]
        #expect(try await store.importConversations(calls, replacing: false) == 3)
        let socket = Conversation(
            cassette: "http", url: "https://api.example.com/chat", key: "GET /chat", requestHeaders: [:], subprotocol: nil, extensions: nil,
            recordedAt: Date(timeIntervalSince1970: 4_000),
            messages: [ConversationMessage(direction: .server, kind: .text, payload: Data("hi".utf8), offsetMilliseconds: 1)], end: .cut)
        #expect(try await store.importConversations([socket], replacing: false) == 1)

        let rows = try await UICatalog(store: store).cassettes()["cassettes"]?.arrayValue?.compactMap(\.objectValue) ?? []
        try #require(rows.map { $0["name"]?.stringValue } == ["grpc", "http"])
        let grpc = rows[0]
        #expect(grpc["interactions"]?.doubleValue == 0)
        #expect(grpc["grpcCalls"]?.doubleValue == 3)
        #expect(grpc["conversations"]?.doubleValue == 0)
        #expect(grpc["size"]?.doubleValue == 88, "the messages' payloads as stored: 4 + 30 + 6 + 3 + 20 + 25")
        #expect(grpc["lastRecorded"]?.stringValue == UICatalog.timestamp(Date(timeIntervalSince1970: 3_000)))
        // A call is stored under its method's path: no host of its own, the cassette's upstream instead.
        #expect(grpc["hosts"]?.arrayValue == [])
        #expect(grpc["upstreams"]?.arrayValue == ["http://127.0.0.1:50051"])
        let http = rows[1]
        #expect(http["interactions"]?.doubleValue == 1)
        #expect(http["grpcCalls"]?.doubleValue == 0)
        #expect(http["conversations"]?.doubleValue == 1)
        #expect(http["size"]?.doubleValue == 7, "the body and the message: 5 + 2")
        #expect(http["lastRecorded"]?.stringValue == UICatalog.timestamp(Date(timeIntervalSince1970: 4_000)))
        #expect(http["hosts"]?.arrayValue == ["https://api.example.com"])
        try await store.close()
    }
}
