import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore

/// `cassette list --cassettes` of a store that holds gRPC calls beside HTTP recordings: the calls
/// are counted in a column of their own, their messages in SIZE and their time in LAST RECORDED.
extension CLIManageTests {
    @Test func listCassettesCountsGRPCCallsTheirMessagesAndTheirTime() async throws {
        try await recordSample()
        let store = try await CassetteStore.open(path: workspace.storePath, access: .readWrite)
        let calls = (0..<2).map { number in
            Conversation(
                cassette: "grpc", url: "/shop.v1.Catalog/GetItem", key: "POST /shop.v1.Catalog/GetItem", requestHeaders: [:], subprotocol: nil,
                extensions: nil, recordedAt: Date(timeIntervalSince1970: 1_800_000_000 + Double(number)),
                messages: [
                    ConversationMessage(direction: .client, kind: .binary, payload: Data(repeating: 1, count: 100), offsetMilliseconds: 0),
                    ConversationMessage(direction: .server, kind: .binary, payload: Data(repeating: 2, count: 412), offsetMilliseconds: 1),
                ], end: .closed(by: .server, code: 0, reason: ""),
                grpc: GRPCCallHeads(responseHeaders: [:], trailers: HTTPFields([HTTPField(name: HTTPField.Name("grpc-status")!, value: "0")])))
        }
        #expect(try await store.importConversations(calls, replacing: false) == 2)
        try await store.close()

        let table = try await workspace.run("list", "--cassettes")
        #expect(table.status == 0, "\(table)")
        let lines = table.stdoutLines.map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        try #require(lines.count == 4, "\(table.stdout)")
        #expect(lines[0] == ["CASSETTE", "UPSTREAM", "RECORDINGS", "GRPC", "CALLS", "SIZE", "LAST", "RECORDED"])
        #expect(lines[1] == ["dev", "-", "3", "0", "79", "B", "2025-06-15T15:06:40Z"])
        #expect(lines[2] == ["grpc", "-", "0", "2", "1.0", "KiB", "2027-01-15T08:00:01Z"])
        let json = try Self.jsonArray(try await workspace.run("list", "--cassettes", "--json").stdout)
        #expect(json.map { $0["name"] as? String } == ["dev", "grpc", "staging"])
        #expect(json.map { $0["count"] as? Int } == [3, 0, 1])
        #expect(json.map { $0["grpcCalls"] as? Int } == [0, 2, 0])
        #expect(json.map { $0["size"] as? Int } == [79, 1024, 2048])
        #expect(json[1]["lastRecordedAt"] as? String == "2027-01-15T08:00:01Z")
    }
}
