import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore

/// `cassette record` keeps the HTTP version each client spoke (curl over HTTP/2 with prior
/// knowledge, and over HTTP/1.1) for `export --har`; keys and replay ignore it.
@Suite("HTTP versions recorded through the proxy")
final class ProxyHTTPVersionRecordingTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("v.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    private func curl(_ arguments: [String]) async throws -> String {
        let result = try await ExternalTool.run(["curl", "-sS", "-v"] + arguments, cwd: workspace.directory)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stderr
    }

    @Test func eachRecordingKeepsItsClientsVersionAndTheHARSaysIt() async throws {
        try await LinkingUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessRecorder(upstream: base, store: store) { recorder in
                let overHTTP2 = try await curl(["--http2-prior-knowledge", recorder.url("/items?page=2").absoluteString])
                #expect(overHTTP2.contains("< HTTP/2 200"), "\(overHTTP2)")
                let overHTTP1 = try await curl(["--http1.1", recorder.url("/items?page=3").absoluteString])
                #expect(overHTTP1.contains("< HTTP/1.1 200"), "\(overHTTP1)")
                _ = await recorder.stop()
            }
        }
        let opened = try await CassetteStore.open(path: store, access: .readOnly)
        let stored = try await opened.interactions(cassette: "dev")
        try await opened.close()
        #expect(stored.map(\.key) == ["GET /items?page=2", "GET /items?page=3"])
        #expect(stored.map(\.httpVersion) == [.http2, .http1_1])

        let result = try await workspace.run("export", "--har", "out.har", "--db", store)
        #expect(result.status == 0, "\(result)")
        let archive = try HARArchive.decode(try Data(contentsOf: URL(fileURLWithPath: workspace.path("out.har"))))
        #expect(archive.log.entries.map(\.request.httpVersion) == ["http/2.0", "HTTP/1.1"])
        #expect(archive.log.entries.map(\.response.httpVersion) == ["http/2.0", "HTTP/1.1"])

        // One recording serves both versions: each replays over the other.
        try await withInProcessReplayer(store: store) { replayer in
            let overHTTP1 = try await curl(["--http1.1", replayer.url("/items?page=2").absoluteString])
            #expect(overHTTP1.contains("< X-Cassette: hit"), "\(overHTTP1)")
            let overHTTP2 = try await curl(["--http2-prior-knowledge", replayer.url("/items?page=3").absoluteString])
            #expect(overHTTP2.contains("< x-cassette: hit"), "\(overHTTP2)")
        }
    }
}
