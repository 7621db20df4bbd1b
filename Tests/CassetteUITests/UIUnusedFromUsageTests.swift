import Foundation
import TestSupport
import Testing
import WellPlateCore

/// `cassette ui` serves a store, with no proxy that served anything: its Unused column comes from
/// the usage a `--track-usage` replay saved, and gives the figures that replay's summary printed,
/// unused recordings (keys, as the proxy counts them) and unused gRPC methods apart; with no
/// tracked replay it cannot know (`null`, which the page explains).
struct UIUnusedFromUsageTests {
    @Test func cassetteUIShowsTheUnusedRecordingsAndGRPCMethodsATrackedReplayCounted() async throws {
        let workspace = try CLIWorkspace()
        let store = workspace.storePath
        // 29 keys, GET /items/1 recorded twice: a key served once is used, whichever sequence served.
        var recordings = UIRecordings.interactions()
        recordings.append(recordings[0])
        try await workspace.record(recordings)
        let scenario = ["get", "list", "count", "chat"]
        try await GRPCPeers.withServer { upstream in
            try await withRecorder(upstream: upstream, store: store) { recorder in
                let calls = try await GRPCPeers.runClient(scenario.joined(separator: ","), against: URL(string: "http://127.0.0.1:\(recorder.port)")!)
                #expect(calls.map(\.code) == scenario.map { _ in "OK" }, "\(calls.map(\.line.compactJSON))")
                #expect(try await recorder.stop() == .exited(0))
            }
        }
        #expect(try await Self.cassette(in: store)?["unused"] == .null, "no replay was tracked: nothing can know")

        let summary = try await withReplayer(store: store, arguments: ["--track-usage"]) { replayer in
            let base = "http://127.0.0.1:\(replayer.port)"
            #expect(try await ProxyClient.send(.get, URL(string: base + "/items/1")!).statusCode == 200)
            #expect(try await ProxyClient.send(.get, URL(string: base + "/items/2")!).statusCode == 200)
            let calls = try await GRPCPeers.runClient("get", against: URL(string: base)!)
            #expect(calls.map(\.code) == ["OK"], "\(calls.map(\.line.compactJSON))")
            #expect(try await replayer.stop() == .exited(0))
            return try #require(replayer.summaryLine)
        }
        let recordingsUnused = try #require(Self.figure("unused recordings", in: summary), "\(summary)")
        let methodsUnused = try #require(Self.figure("unused gRPC methods", in: summary), "\(summary)")
        #expect(recordingsUnused == 27 && methodsUnused == 3, "\(summary)")

        let cassette = try #require(try await Self.cassette(in: store))
        #expect(cassette["unused"]?.doubleValue == Double(recordingsUnused), "\(cassette)")
        #expect(cassette["unusedGRPCMethods"]?.doubleValue == Double(methodsUnused), "\(cassette)")
    }

    /// The number after `label ` in a proxy's summary line.
    static func figure(_ label: String, in summary: String) -> Int? {
        guard let range = summary.range(of: label + " ") else { return nil }
        return Int(summary[range.upperBound...].prefix { $0.isNumber })
    }

    /// The `dev` row of `api/cassettes` as `cassette ui` serves it for the store at `path`.
    static func cassette(in path: String) async throws -> JSONObject? {
        try await withChildProcess("cassette", arguments: ["ui", "--db", path, "--port", "0"]) { process in
            try await process.waitForOutput("the ui line") { $0.contains("ui on ") }
            let line = try #require(process.standardOutput.split(separator: "\n").first { $0.hasPrefix("ui on ") })
            let url = try #require(URL(string: String(line.dropFirst("ui on ".count)) + "__cassette/ui/api/cassettes"))
            let response = try await ProxyClient.send(.get, url)
            try #require(response.statusCode == 200)
            let rows = try JSONValue(parsing: response.body)["cassettes"]?.arrayValue ?? []
            return rows.compactMap(\.objectValue).first { $0["name"] == "dev" }
        }
    }
}
