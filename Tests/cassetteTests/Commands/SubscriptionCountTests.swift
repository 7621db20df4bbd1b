import Foundation
import TestSupport
import Testing
import WellPlateCore

/// A GraphQL subscription over WebSocket is one recording of its operation in `schema` and
/// `diff`, its payloads the answer's messages, as a gRPC stream is one call; the schema is still
/// inferred from every payload. Recorded through `cassette record` from the real strawberry-graphql
/// server with the gql client (`Tests/Peers/multiplexed_peers.py`), over both subprotocols.
struct SubscriptionCountTests {
    @Test(arguments: ["graphql-transport-ws", "graphql-ws"])
    func aSubscriptionIsOneRecordingWhoseEveryPayloadShapesTheSchema(_ subprotocol: String) async throws {
        let workspace = try CLIWorkspace()
        // Countdown from 2 sends 2 then 1, from 3 sends 3, 2, 1: two operations, five payloads.
        try await Self.record(into: workspace.path("ws.db"), subprotocol: subprotocol)
        try await Self.record(into: workspace.path("drifted.db"), subprotocol: subprotocol, server: ["--drift"])

        let schema = try await workspace.run("schema", "--db", "ws.db", "--out", "schemas")
        #expect(schema.status == 0, "\(schema)")
        #expect(schema.stdout.contains("POST /graphql subscription Countdown, 2 recordings)"), "\(schema.stdout)")
        let written = try JSONValue(
            parsing: Data(contentsOf: URL(fileURLWithPath: workspace.path("schemas/mock_graphql_post_subscription_countdown.schema.json"))))
        #expect(written["properties"]?["countdown"]?["type"]?.stringValue == "integer", "\(written)")

        // --drift: the last payload of each Countdown is null. Only merging every payload sees it.
        let diff = try await workspace.run("diff", "--db", "ws.db", "--against", "drifted.db")
        #expect(diff.status == 1, "\(diff)")
        #expect(diff.stdout.contains("POST /graphql subscription Countdown  (ws.db: 2 recordings, drifted.db: 2 recordings)"), "\(diff.stdout)")
        #expect(diff.stdout.contains("$.countdown"), "\(diff.stdout)")
    }

    /// Countdowns from 2 and 3 through `cassette record` into the store at `path`.
    static func record(into path: String, subprotocol: String, server arguments: [String] = []) async throws {
        try await MultiplexedPeers.withServer("graphql-server", arguments: arguments) { upstream in
            try await withRecorder(upstream: upstream, store: path) { recorder in
                let answers = try await MultiplexedPeers.client("graphql-client", ["http://127.0.0.1:\(recorder.port)", "23", subprotocol])
                let expected = arguments.isEmpty ? ["[2, 1]", "[3, 2, 1]"] : ["[2, null]", "[3, 2, null]"]
                #expect(answers == zip(["2", "3"], expected).map { #"{"op": "\#($0)", "values": \#($1)}"# }, "\(answers)")
                #expect(try await recorder.stop() == .exited(0))
            }
        }
    }
}
