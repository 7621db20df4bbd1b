import CassetteControl
import CassetteTesting
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `withCassetteSession`: where it finds the proxy and how it reports what the session saw.
@Suite("withCassetteSession")
final class CassetteSessionHelperTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("c.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    @Test func withoutAProxyItSaysHowToStartOne() async throws {
        let error = try await #require(throws: CassetteTestingError.self) {
            try await withCassetteSession(environment: [:]) { _ in Issue.record("the body ran without a session") }
        }
        #expect(error.message.contains("pass control: URL"))
        #expect(error.message.contains("CASSETTE_CONTROL_URL"))

        let malformed = try await #require(throws: CassetteTestingError.self) {
            try await withCassetteSession(environment: ["CASSETTE_URL": "127.0.0.1:8080"]) { _ in }
        }
        #expect(malformed.message == "CASSETTE_URL=127.0.0.1:8080 is not the address of a cassette proxy such as http://127.0.0.1:8080")
    }

    @Test func itFindsTheProxyThatCassetteRunAnnouncesAndNamesTheCassetteAfterTheTest() async throws {
        try await withSampleAPI { api async throws in
            try await withRecorder(upstream: api, store: store) { proxy async throws in
                let name = try await withCassetteSession(environment: ["CASSETTE_URL": proxy.url.absoluteString, "CASSETTE_RECORD": "missing"]) {
                    session async throws in
                    #expect(session.mode == .missing)
                    #expect(try await ProxyClient.send(.get, session.baseURL.appending(path: "api/health")).statusCode == 200)
                    return session.cassette
                }
                #expect(name == "CassetteSessionHelperTests/itFindsTheProxyThatCassetteRunAnnouncesAndNamesTheCassetteAfterTheTest()")
                #expect(try await proxy.liveSessions().isEmpty)
            }
        }
    }

    @Test func unusedRecordingsFailTheTestWhenAskedAndTheSessionEndsEvenWhenTheBodyThrows() async throws {
        try await withSampleAPI { api async throws in
            try await withRecorder(upstream: api, store: store) { proxy async throws in
                try await withCassetteSession("shared", control: proxy.url, mode: .missing) { session async throws in
                    _ = try await ProxyClient.send(.get, session.baseURL.appending(path: "api/health"))
                    _ = try await ProxyClient.send(.get, session.baseURL.appending(path: "api/users"))
                }
                try await withKnownIssue {
                    try await withCassetteSession("shared", control: proxy.url, mode: .replayOnly, allowUnused: false) { session async throws in
                        _ = try await ProxyClient.send(.get, session.baseURL.appending(path: "api/health"))
                    }
                } matching: { issue in
                    issue.severity == .error
                        && issue.comments.map(\.rawValue).joined()
                            == "cassette \"shared\" has 1 recording(s) this test never used: GET /api/users; delete them from the cassette or record it again"
                }

                struct Stop: Error {}
                await #expect(throws: Stop.self) {
                    try await withCassetteSession("shared", control: proxy.url, mode: .replayOnly) { session async throws in
                        for path in ["api/health", "api/users"] { _ = try await ProxyClient.send(.get, session.baseURL.appending(path: path)) }
                        throw Stop()
                    }
                }
                #expect(try await proxy.liveSessions().isEmpty)
            }
        }
    }
}
