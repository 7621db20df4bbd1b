import CassetteControl
import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `CassetteControl` against the real `cassette` binary: sessions started, read, reset and
/// ended from Swift, and every refusal carried as the proxy explained it.
@Suite("CassetteControl")
final class CassetteControlTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("c.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// `GET url` over URLSession, as an app would send it.
    static func get(_ url: URL) async throws -> (status: Int, body: String) {
        let (data, response) = try await URLSession.shared.data(from: url)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test func aSessionOfAProxyWithTwoUpstreamsNamesItsListenerForEachHost() async throws {
        let auth: [String: RoutedUpstream.Route] = ["GET /v1/me": .init(json: #"{"host": "auth"}"#)]
        let api: [String: RoutedUpstream.Route] = ["GET /v1/me": .init(json: #"{"host": "api"}"#)]
        try await RoutedUpstream.with(auth, name: "auth", in: workspace.directory.path) { authURL in
            try await RoutedUpstream.with(api, name: "api", in: workspace.directory.path) { apiURL in
                let arguments = [
                    "record", "--upstream", apiURL.absoluteString, "--upstream", authURL.absoluteString, "--port", "0", "--db", store, "--sessions-only",
                ]
                try await withProxyListeners(arguments, count: 2) { proxy in
                    let session = try await CassetteControl(url: proxy.listeners[1].url).startSession(cassette: "two-hosts", mode: .once)
                    #expect(session.listeners.map(\.upstream) == [apiURL.absoluteString, authURL.absoluteString])
                    #expect(session.baseURL == session.listeners[0].baseURL)
                    let authBase = try #require(session.baseURL(for: authURL))
                    #expect(try await Self.get(authBase.appending(path: "v1/me")).body.contains("auth"))
                    let apiBase = try #require(session.baseURL(for: apiURL))
                    #expect(try await Self.get(apiBase.appending(path: "v1/me")).body.contains("api"))
                    #expect(session.baseURL(for: URL(string: "https://elsewhere.example")!) == nil)
                    let fromAuth = try await session.requests(host: "127.0.0.1:\(authURL.port!)")
                    #expect(fromAuth.map(\.origin) == [authURL.absoluteString])
                    #expect(fromAuth.map(\.path) == ["/v1/me"])
                    let summary = try await session.end()
                    #expect(summary.recorded == 2)
                }
            }
        }
    }

    @Test func aSessionRecordsReplaysAndReportsWhatItServed() async throws {
        try await withSampleAPI { api async throws in
            try await withRecorder(upstream: api, store: store) { proxy async throws in
                let control = CassetteControl(url: proxy.url)
                let recording = try await control.startSession(cassette: "profile", mode: .missing)
                #expect(recording.cassette == "profile")
                #expect(recording.mode == .missing)
                #expect(recording.baseURL.port != proxy.url.port)
                #expect(try await Self.get(recording.baseURL.appending(path: "api/users/1")).status == 200)
                #expect(try await Self.get(recording.baseURL.appending(path: "api/health")).status == 200)
                let journal = try await recording.requests()
                #expect(journal.map(\.path) == ["/api/users/1", "/api/health"])
                #expect(journal.map(\.source) == [.recorded, .recorded])
                #expect(journal.first?.key == "GET /api/users/1")
                #expect(journal.first?.position == 0)
                #expect(journal.first?.date != nil)
                #expect(try await recording.requests(method: "GET", path: "/api/health").count == 1)
                #expect(try await recording.requests(path: "/api/users/*").map(\.path) == ["/api/users/1"])
                let recorded = try await recording.end()
                #expect(recorded.served == 2)
                #expect(recorded.recorded == 2)
                #expect(recorded.missed.isEmpty)

                let replaying = try await control.startSession(cassette: "profile", mode: CassetteControl.Mode.replayOnly)
                #expect(try await control.sessions().map(\.id) == [replaying.id])
                let user = try await Self.get(replaying.baseURL.appending(path: "api/users/1"))
                #expect(user.status == 200)
                #expect(try await replaying.requests().map(\.source) == [.hit])
                try await replaying.reset()
                #expect(try await replaying.requests().isEmpty)
                let summary = try await replaying.end(strict: true)
                #expect(summary.served == 0)
                #expect(summary.unused == ["GET /api/health", "GET /api/users/1"])
                #expect(try await control.sessions().isEmpty)
            }
        }
    }

    @Test func endingStrictlyThrowsTheMissesAndWhenAskedTheUnusedRecordings() async throws {
        try await withSampleAPI { api async throws in
            try await withRecorder(upstream: api, store: store) { proxy async throws in
                let control = CassetteControl(url: proxy.url)
                let recording = try await control.startSession(cassette: "login", mode: .missing)
                _ = try await Self.get(recording.baseURL.appending(path: "api/users"))
                _ = try await Self.get(recording.baseURL.appending(path: "api/health"))
                try await recording.end()

                let missing = try await control.startSession(cassette: "login", mode: CassetteControl.Mode.replayOnly)
                _ = try await Self.get(missing.baseURL.appending(path: "api/users"))
                #expect(try await Self.get(missing.baseURL.appending(path: "api/usrs")).status == 404)
                _ = try await Self.get(missing.baseURL.appending(path: "api/usrs"))
                let error = try await #require(throws: CassetteControlError.self) { try await missing.end(strict: true) }
                #expect(error.kind == .misses)
                #expect(error.message.hasPrefix("session \(missing.id) (cassette \"login\"): 2 request(s) had no recording:\n- No recording of GET /api/usrs"))
                #expect(error.message.hasSuffix("(2 times)"))
                #expect(!error.message.contains("never used"))
                let summary = try #require(error.summary)
                #expect(summary.missed.map(\.key) == ["GET /api/usrs"])
                #expect(summary.missed.first?.nearest.contains { $0.key == "GET /api/users" } == true)
                #expect(summary.unused == ["GET /api/health"])

                let unused = try await control.startSession(cassette: "login", mode: CassetteControl.Mode.replayOnly)
                _ = try await Self.get(unused.baseURL.appending(path: "api/users"))
                let unusedError = try await #require(throws: CassetteControlError.self) { try await unused.end(strict: true, failOnUnused: true) }
                #expect(unusedError.kind == .misses)
                #expect(unusedError.message == "session \(unused.id) (cassette \"login\"): 1 recording(s) were never used: GET /api/health")

                let lenient = try await control.startSession(cassette: "login", mode: CassetteControl.Mode.replayOnly)
                _ = try await Self.get(lenient.baseURL.appending(path: "api/nothing"))
                #expect(try await lenient.end(strict: false).missed.count == 1)
            }
        }
    }

    @Test func refusalsCarryTheProxysExplanation() async throws {
        try await withSampleAPI { api async throws in
            try await withRecorder(upstream: api, store: store, arguments: ["--max-sessions", "1"]) { proxy async throws in
                let control = CassetteControl(url: proxy.url)
                let unknown = try await #require(throws: CassetteControlError.self) {
                    try await control.startSession(cassette: "nightly", mode: CassetteControl.Mode.replayOnly)
                }
                #expect(unknown.kind == .refused)
                #expect(unknown.statusCode == 404)
                #expect(unknown.code == "unknown_cassette")
                #expect(unknown.message.contains("cassette \"nightly\" has no recordings"))

                let first = try await control.startSession(cassette: "a", mode: .missing)
                let tooMany = try await #require(throws: CassetteControlError.self) { try await control.startSession(cassette: "b", mode: .missing) }
                #expect(tooMany.statusCode == 429)
                #expect(tooMany.code == "too_many_sessions")
                try await first.end()

                let ended = try await #require(throws: CassetteControlError.self) { try await first.requests() }
                #expect(ended.statusCode == 404)
                #expect(ended.code == "unknown_session")
            }
        }
    }

    @Test func anUnreachableProxyIsSaidToBeSo() async throws {
        try await Ports.withRefusingPort { port async throws in
            let control = CassetteControl(url: URL(string: "http://127.0.0.1:\(port)")!, timeout: 5)
            let error = try await #require(throws: CassetteControlError.self) { try await control.startSession(cassette: "login") }
            #expect(error.kind == .unreachable)
            #expect(error.message.contains("could not be reached"))
            #expect(error.message.contains("cassette record"))
        }
    }
}
