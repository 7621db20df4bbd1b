import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `ReplayAPIClient` is the live client over a cassette: a refreshed 401 recorded in-process
/// replays as the 401, the refresh call and the request sent again, and a refused refresh replays
/// to the same hook call and the same error, with the sample API stopped.
@Suite("Refreshing credentials, replayed")
final class ReplayedRefreshTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "replayed-refresh")
    }

    var store: String { directory.path() }

    struct Profile: Codable, Equatable {
        let id: Int
        let name: String
    }

    /// `GET /api/me` with the expired token and `refreshToken`, recorded into `cassette`; the refresh
    /// call is recorded too. Returns the outcome, the hook calls and the sample API's base URL.
    func record(cassette: String, refreshToken: String) async throws -> (CallOutcome, Int, URL) {
        try await withSampleAPI { base in
            try await withRecordingTransport(path: store, cassette: cassette, mode: .all) { recorder in
                let credentials = SampleAPICredentials(base: base, refreshToken: refreshToken)
                credentials.refresh(through: APIClient(transport: recorder))
                let hook = Tally()
                var configuration = APIClient.Configuration()
                credentials.install(in: &configuration)
                configuration.countUnauthorized(in: hook)
                let client = APIClient(transport: recorder, configuration: configuration)
                let outcome = await CallOutcome.of {
                    try CallOutcome.json(try await client.get(url: base.appending(pathAndQuery: "/api/me"), responseType: Profile.self))
                }
                return (outcome, hook.count, base)
            }
        }
    }

    /// The same call replayed from `cassette`, the refresh call through a replaying client of the same session.
    func replay(cassette: String, refreshToken: String, base: URL) async throws -> (CallOutcome, Int, CassetteSession.Counters) {
        let plain = try await ReplayAPIClient.open(path: store, cassette: cassette)
        let credentials = SampleAPICredentials(base: base, refreshToken: refreshToken)
        credentials.refresh(through: plain)
        let hook = Tally()
        var configuration = ReplayAPIClient.defaultConfiguration
        credentials.install(in: &configuration)
        configuration.countUnauthorized(in: hook)
        let replay = ReplayAPIClient(session: plain.session, configuration: configuration)
        let outcome = await CallOutcome.of {
            try CallOutcome.json(try await replay.get(url: base.appending(pathAndQuery: "/api/me"), responseType: Profile.self))
        }
        return (outcome, hook.count, plain.session.statistics)
    }

    func keys(_ cassette: String) async throws -> [String] {
        try await storedInteractions(store, cassette: cassette).sorted { ($0.id ?? 0) < ($1.id ?? 0) }.map {
            "\($0.method.rawValue) \(URL(string: $0.url)?.path ?? $0.url) \($0.statusCode)"
        }
    }

    @Test func aRefreshed401ReplaysAsThe401TheRefreshAndTheRequestSentAgain() async throws {
        let (live, liveHook, base) = try await record(cassette: "refreshed", refreshToken: "rt_valid")
        #expect(live == .value(try CallOutcome.json(Profile(id: 1, name: "Ada Lovelace"))))
        #expect(liveHook == 0)
        #expect(try await keys("refreshed") == ["GET /api/me 401", "POST /api/auth/refresh 200", "GET /api/me 200"])

        let (replayed, hook, statistics) = try await replay(cassette: "refreshed", refreshToken: "rt_valid", base: base)
        #expect(replayed == live)
        #expect(hook == 0)
        #expect(statistics.replayed == 3 && statistics.missed == 0)
    }

    @Test func aRefusedRefreshReplaysToTheSameHookCallAndError() async throws {
        let (live, liveHook, base) = try await record(cassette: "revoked", refreshToken: "revoked")
        guard case .apiError(.unauthorized, 401, _) = live else {
            Issue.record("live: \(live)")
            return
        }
        #expect(liveHook == 1)
        #expect(try await keys("revoked") == ["GET /api/me 401", "POST /api/auth/refresh 401"])

        let (replayed, hook, statistics) = try await replay(cassette: "revoked", refreshToken: "revoked", base: base)
        // The server's message repeats the token sent (`expired`), a secret the store redacts; replay
        // puts the live request's own value back where it was echoed (docs/redaction.md).
        #expect(replayed == live)
        #expect(hook == 1)
        #expect(statistics.replayed == 2 && statistics.missed == 0)
    }
}
