import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore

/// gRPC calls through HAR between PyPI's `grpcio` peers: recorded through `cassette record`,
/// exported with `export --har` as HTTP/2 `POST`s, imported into a new store, and replayed with
/// the upstream stopped; the export read back by mitmproxy, a real HAR consumer.
@Suite("gRPC calls exported to HAR and imported back, with grpcio and mitmproxy")
final class ProxyGRPCHARTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("grpc.db") }
    private let scenario = "get,missing,other,slow,list,count,chat"

    init() throws {
        workspace = try CLIWorkspace()
    }

    private func record() async throws -> [GRPCPeers.Call] {
        let directory = try TemporaryDirectory(prefix: "grpc-protoset")
        let protoset = try await GRPCPeers.protoset(in: directory).path
        return try await GRPCPeers.withServer { upstream in
            try await withInProcessProxy(["record", "--upstream", upstream.absoluteString, "--port", "0", "--db", store, "--protoset", protoset]) {
                proxy in
                let calls = try await GRPCPeers.runClient(scenario, against: proxy.url(""))
                _ = await proxy.stop()
                return calls
            }
        }
    }

    private func exported() async throws -> HARArchive {
        let result = try await workspace.run("export", "--har", "calls.har", "--db", store)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("Exported 0 recordings and 7 gRPC calls from 1 cassette of"), "\(result)")
        return try HARArchive.decode(try Data(contentsOf: URL(fileURLWithPath: workspace.path("calls.har"))))
    }

    @Test("export --har, import into a new store, replay with the upstream stopped: the same answers")
    func roundTripReplaysTheSameAnswers() async throws {
        let recorded = try await record()
        let archive = try await exported()
        let entries = archive.log.entries
        #expect(entries.count == 7)
        #expect(entries.allSatisfy { $0.request.method == "POST" && $0.request.httpVersion == "http/2.0" && $0.response.status == 200 })
        #expect(entries.allSatisfy { $0.resourceType == nil && $0.webSocketMessages == nil })
        #expect(entries.allSatisfy { $0.request.url.hasPrefix("http://127.0.0.1:") && $0.request.url.contains("/shop.v1.Catalog/") })
        #expect(entries.allSatisfy { $0.request.postData?.encoding == "base64" && $0.response.content.encoding == "base64" })
        let missing = try #require(entries.first { $0.comment?.hasPrefix("gRPC NOT_FOUND") == true })
        #expect(missing.response.trailers?.contains(HARNameValue(name: "x-trace-bin", value: "AAH+")) == true, "\(missing.response)")
        // Decoded with the protoset the recording stored.
        let list = try #require(entries.first { $0.request.url.hasSuffix("/ListItems") })
        #expect(list.grpcMessages?.filter { $0.type == "receive" }.compactMap { $0.json?.value["name"] } == [.string("Dune"), .string("Neuromancer")])

        let imported = try await workspace.run("import", "calls.har", "--db", "imported.db")
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.stdout.contains("Imported 7 gRPC calls (4 keys) from calls.har into cassette dev"), "\(imported)")
        let replayed = try await withInProcessReplayer(store: workspace.path("imported.db")) { replayer in
            try await GRPCPeers.runClient(scenario, against: replayer.url(""))
        }
        #expect(replayed.map(\.line) == recorded.map(\.line), "\(replayed.map(\.line.compactJSON))")
    }

    @Test("mitmproxy reads the exported calls as HTTP/2 POSTs with the same response bytes")
    func mitmproxyReadsTheExport() async throws {
        _ = try await record()
        let archive = try await exported()
        let reread = try await Mitmproxy.run(
            ["-n", "-r", workspace.path("calls.har"), "--set", "hardump=\(workspace.path("again.har"))"], directory: workspace.directory.path)
        #expect(reread.status == .exited(0), "\(reread.output)")
        let again = try HARArchive.decode(try Data(contentsOf: URL(fileURLWithPath: workspace.path("again.har"))))
        #expect(again.log.entries.map(\.request.url) == archive.log.entries.map(\.request.url))
        #expect(
            again.log.entries.allSatisfy { $0.request.method == "POST" && $0.request.httpVersion == "HTTP/2" },
            "\(again.log.entries.map(\.request.httpVersion))")
        let bytes = { (entry: HAREntry) -> Data? in
            guard let text = entry.response.content.text else { return nil }
            return entry.response.content.encoding == "base64" ? Data(base64Encoded: text) : Data(text.utf8)
        }
        let withMessages = archive.log.entries.indices.filter { !(archive.log.entries[$0].response.content.text ?? "").isEmpty }
        #expect(!withMessages.isEmpty)
        #expect(withMessages.map { bytes(again.log.entries[$0]) } == withMessages.map { bytes(archive.log.entries[$0]) })
    }
}
