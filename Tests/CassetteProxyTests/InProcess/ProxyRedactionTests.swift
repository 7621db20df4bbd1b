import CassetteProxy
import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// Secrets a client sends through the proxy (headers, query parameters) must never be written to
/// the store's files or printed by the proxy.
@Suite("Proxy redaction")
final class ProxyRedactionTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("c.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// Every secret below contains this, so one search finds any of them.
    static let secretMarker = "s3cr3t"

    static let secretHeaders: HTTPFields = [
        .authorization: "Bearer s3cr3t-bearer",
        HTTPField.Name("X-Api-Key")!: "s3cr3t-api-key",
        .cookie: "session=s3cr3t-cookie",
    ]

    static let secretQuery = "api_key=s3cr3t-query-key&token=s3cr3t-query-token"

    func expectNoSecret(in proxy: InProcessProxy, _ comment: Comment) {
        #expect(!proxy.standardOutput.contains(Self.secretMarker), comment)
        #expect(!proxy.standardError.contains(Self.secretMarker), comment)
    }

    @Test func secretsInHeadersAndQueryStringsNeverReachTheStoreOrTheOutput() async throws {
        try await withSampleAPI { api async throws in
            try await withInProcessRecorder(upstream: api, store: store) { recorder async throws in
                var headers = Self.secretHeaders
                // A harmless value sent the same way: it must be found, or the search proves nothing.
                headers[HTTPField.Name("X-Trace")!] = "visible-trace-marker"
                let users = try await recorder.get("/api/users?\(Self.secretQuery)&marker=visible-query-marker", headers: headers)
                #expect(users.statusCode == 200)
                #expect(users.cassetteSource == "recorded")
                let posted = try await recorder.send(
                    .post, "/api/nutrition/analyze?token=s3cr3t-post-token", headers: Self.secretHeaders.merging([.contentType: "application/json"]),
                    body: Data(#"{"food":"apple","grams":100}"#.utf8))
                #expect(posted.statusCode == 200)

                // While the recorder runs, fresh pages sit in the -wal file.
                try await recorder.waitForLogLine(containing: "POST /api/nutrition/analyze")
                #expect(try StoreFiles.files(at: store, containing: Self.secretMarker) == [])
                #expect(try !StoreFiles.files(at: store, containing: "visible-trace-marker").isEmpty)
                #expect(try !StoreFiles.files(at: store, containing: "visible-query-marker").isEmpty)

                await recorder.stop()
                expectNoSecret(in: recorder, "recorder output")
                #expect(recorder.standardOutput.contains("api_key=REDACTED&token=REDACTED"))
            }
        }
        #expect(try StoreFiles.files(at: store, containing: Self.secretMarker) == [])
        let stored = try await StoreFiles.interactions(at: store)
        #expect(stored.count == 2)
        for interaction in stored {
            #expect(interaction.requestHeaders[.authorization] == Redactor.placeholder)
            #expect(interaction.requestHeaders[.cookie] == "session=\(Redactor.placeholder)")
            #expect(!interaction.url.contains(Self.secretMarker))
        }

        // Other secret values replay the same recording, and a miss explains itself without them.
        try await withInProcessReplayer(store: store) { replayer async throws in
            let hit = try await replayer.get("/api/users?api_key=s3cr3t-other&token=s3cr3t-other&marker=visible-query-marker", headers: Self.secretHeaders)
            #expect(hit.cassetteSource == "hit")
            let miss = try await replayer.get("/api/userz?token=s3cr3t-miss", headers: Self.secretHeaders)
            #expect(miss.cassetteSource == "miss")
            #expect(!miss.bodyText.contains(Self.secretMarker))
            await replayer.stop()
            expectNoSecret(in: replayer, "replayer output")
        }
    }

    @Test func anUnreachableUpstreamErrorNamesNoSecret() async throws {
        try await Ports.withRefusingPort { port async throws in
            try await withInProcessRecorder(upstream: URL(string: "http://127.0.0.1:\(port)")!, store: store) { recorder async throws in
                let response = try await recorder.get("/api/users?\(Self.secretQuery)", headers: Self.secretHeaders)
                #expect(response.statusCode == 502)
                #expect(!response.bodyText.contains(Self.secretMarker))
                await recorder.stop()
                expectNoSecret(in: recorder, "recorder output")
            }
        }
    }
}

private extension HTTPFields {
    func merging(_ other: HTTPFields) -> HTTPFields {
        var merged = self
        for field in other { merged.append(field) }
        return merged
    }
}
