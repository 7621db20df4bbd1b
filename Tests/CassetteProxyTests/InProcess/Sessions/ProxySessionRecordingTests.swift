import CassetteProxy
import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// Sessions that record: each recording is in the store before its answer, the session header
/// never reaches the upstream or the store, and URLs leading back to the upstream point at the
/// session.
@Suite("Proxy sessions: recording")
final class ProxySessionRecordingTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("c.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    @Test func eachRecordingIsCommittedBeforeItsAnswer() async throws {
        try await withSampleAPI { api async throws in
            try await withInProcessRecorder(upstream: api, store: store) { proxy async throws in
                let session = try await proxy.openSession("signup", mode: "missing")
                for number in 1...3 {
                    let answer = try await session.get("/api/users/\(number)")
                    #expect(answer.cassetteSource == "recorded")
                    // Read from the file by another connection while the proxy runs, right after the answer.
                    let stored = try await StoreFiles.interactions(at: store, cassette: "signup")
                    #expect(stored.count == number)
                    #expect(stored.map(\.key).contains("GET /api/users/\(number)"))
                }
                #expect(try await StoreFiles.interactions(at: store, cassette: "dev").isEmpty)
            }
        }
    }

    @Test func theSessionHeaderIsNeitherForwardedNorRecorded() async throws {
        try await withSampleAPI { api async throws in
            try await withInProcessRecorder(upstream: api, store: store) { proxy async throws in
                let session = try await proxy.openSession("echo", mode: "all")
                let routed = try await session.getThroughMainPort("/api/echo", headers: [HTTPField.Name("X-Trace")!: "t1"])
                #expect(routed.cassetteSource == "recorded")
                let direct = try await session.get("/api/echo?direct=1", headers: [HTTPField.Name("X-Cassette-Session")!: session.id])
                #expect(direct.cassetteSource == "recorded")
                for answer in [routed, direct] {
                    let headers = try #require(try answer.jsonObject()["headers"] as? [[String]])
                    #expect(!headers.contains { $0.first?.lowercased() == "x-cassette-session" }, "\(headers)")
                }
                #expect(try routed.jsonObject()["headers"].map { "\($0)" }?.contains("X-Trace") == true)
            }
        }
        let stored = try await StoreFiles.interactions(at: store, cassette: "echo")
        #expect(stored.count == 2)
        for interaction in stored {
            #expect(interaction.requestHeaders[HTTPField.Name("X-Cassette-Session")!] == nil)
            #expect(!String(decoding: interaction.responseBody, as: UTF8.self).lowercased().contains("x-cassette-session"))
        }
        #expect(try StoreFiles.files(at: store, containing: "X-Cassette-Session").isEmpty)
    }

    @Test func urlsLeadingBackToTheUpstreamPointAtTheSessionInRecordAndReplay() async throws {
        try await LinkingUpstream.with(in: workspace.directory.path) { upstream async throws in
            try await withInProcessRecorder(upstream: upstream, store: store) { proxy async throws in
                let session = try await proxy.openSession("links", mode: "missing")
                let recorded = try await session.get("/redirect/1")
                #expect(recorded.statusCode == 302)
                #expect(recorded.headerFields[.location] == "http://127.0.0.1:\(session.port)/redirect/0")
                let page = try await session.get("/items?page=1")
                #expect(page.headerFields[HTTPField.Name("Link")!]?.contains("<http://127.0.0.1:\(session.port)/items?page=2>") == true)
                _ = try await session.end()

                let replaying = try await proxy.openSession("links", mode: "none")
                let replayed = try await replaying.get("/redirect/1")
                #expect(replayed.cassetteSource == "hit")
                #expect(replayed.headerFields[.location] == "http://127.0.0.1:\(replaying.port)/redirect/0")
                // Through the main port the client reached the proxy there, so that is where the URL points.
                let routed = try await replaying.getThroughMainPort("/redirect/1")
                #expect(routed.headerFields[.location] == "http://127.0.0.1:\(proxy.port)/redirect/0")
            }
        }
    }
}
