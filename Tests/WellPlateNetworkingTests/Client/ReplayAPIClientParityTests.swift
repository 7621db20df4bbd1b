import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// A session recorded with the live `APIClient` over a `RecordingTransport` replays through
/// `ReplayAPIClient`, with the sample API stopped, to the same values and the same errors.
@Suite("ReplayAPIClient parity with the live client")
final class ReplayAPIClientParityTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "replay-parity")
    }

    var store: String { directory.path() }

    struct Profile: Codable, Sendable {
        let id: Int
        let name: String
        let email: String
        let plan: String
    }

    /// One call of the session, and the outcome the live sample API must give it (so that the
    /// comparison is between meaningful results, not two identical mistakes).
    struct Call: Sendable {
        enum Expected: Sendable, Equatable {
            case value
            case error(APIError.Category, Int?)
        }

        let name: String
        let expected: Expected
        let run: @Sendable (any APIClientProtocol, URL) async throws -> String
    }

    static func url(_ base: URL, _ pathAndQuery: String) -> URL {
        base.appending(pathAndQuery: pathAndQuery)
    }

    static func body(_ json: String) -> Data {
        Data(json.utf8)
    }

    static let calls: [Call] = [
        Call(name: "health", expected: .value) { client, base in
            try CallOutcome.json(try await client.get(url: url(base, "/api/health"), responseType: Health.self))
        },
        Call(name: "users list (gzip)", expected: .value) { client, base in
            try CallOutcome.json(try await client.get(url: url(base, "/api/users"), responseType: [User].self))
        },
        Call(name: "user detail", expected: .value) { client, base in
            try CallOutcome.json(try await client.get(url: url(base, "/api/users/1"), responseType: User.self))
        },
        Call(name: "missing user", expected: .error(.notFound, 404)) { client, base in
            try CallOutcome.json(try await client.get(url: url(base, "/api/users/99"), responseType: User.self))
        },
        Call(name: "create user", expected: .value) { client, base in
            try CallOutcome.json(
                try await client.post(
                    url: url(base, "/api/users"), body: body(#"{"name":"Katherine Johnson","email":"kj@example.com"}"#), responseType: User.self))
        },
        Call(name: "create user without a name", expected: .error(.badRequest, 400)) { client, base in
            try CallOutcome.json(try await client.post(url: url(base, "/api/users"), body: body(#"{"email":"x@example.com"}"#), responseType: User.self))
        },
        Call(name: "replace user", expected: .value) { client, base in
            try CallOutcome.json(
                try await client.put(url: url(base, "/api/users/4"), body: body(#"{"name":"K. Johnson","email":"k@example.com"}"#), responseType: User.self))
        },
        Call(name: "patch user", expected: .value) { client, base in
            try CallOutcome.json(try await client.patch(url: url(base, "/api/users/4"), body: body(#"{"role":"admin"}"#), responseType: User.self))
        },
        Call(name: "delete user (204)", expected: .value) { client, base in
            try await client.deleteVoid(url: url(base, "/api/users/4"))
            return "void"
        },
        Call(name: "delete the deleted user", expected: .error(.notFound, 404)) { client, base in
            try await client.deleteVoid(url: url(base, "/api/users/4"))
            return "void"
        },
        Call(name: "nutrition analyze", expected: .value) { client, base in
            try CallOutcome.json(
                try await client.post(
                    url: url(base, "/api/nutrition/analyze"), body: body(#"{"food":"apple","grams":150}"#), responseType: NutritionalInfo.self))
        },
        Call(name: "nutrition analyze of an unknown food", expected: .error(.clientError, 422)) { client, base in
            try CallOutcome.json(
                try await client.post(url: url(base, "/api/nutrition/analyze"), body: body(#"{"food":"kale","grams":150}"#), responseType: NutritionalInfo.self)
            )
        },
        Call(name: "nutrition history (gzip)", expected: .value) { client, base in
            try CallOutcome.json(try await client.get(url: url(base, "/api/nutrition/history"), responseType: [HistoryEntry].self))
        },
        Call(name: "me with Authorization", expected: .value) { client, base in
            try CallOutcome.json(
                try await client.get(url: url(base, "/api/me"), headers: ["Authorization": "Bearer parity-token-42"], responseType: Profile.self))
        },
        Call(name: "me without Authorization", expected: .error(.unauthorized, 401)) { client, base in
            try CallOutcome.json(try await client.get(url: url(base, "/api/me"), responseType: Profile.self))
        },
        Call(name: "me with an expired token", expected: .error(.unauthorized, 401)) { client, base in
            try CallOutcome.json(try await client.get(url: url(base, "/api/me"), headers: ["Authorization": "Bearer expired"], responseType: Profile.self))
        },
        Call(name: "status 400", expected: .error(.badRequest, 400)) { client, base in
            try await client.requestVoid(url: url(base, "/api/status/400"), method: .get)
            return "void"
        },
        Call(name: "status 403", expected: .error(.forbidden, 403)) { client, base in
            try await client.requestVoid(url: url(base, "/api/status/403"), method: .get)
            return "void"
        },
        Call(name: "status 429", expected: .error(.rateLimited, 429)) { client, base in
            try await client.requestVoid(url: url(base, "/api/status/429"), method: .get)
            return "void"
        },
        Call(name: "status 500", expected: .error(.serverError, 500)) { client, base in
            try await client.requestVoid(url: url(base, "/api/status/500"), method: .get)
            return "void"
        },
        Call(name: "flaky: two 503s, then success after retries", expected: .value) { client, base in
            try CallOutcome.json(try await client.get(url: url(base, "/api/flaky?key=parity&failures=2"), responseType: FlakyResult.self))
        },
        Call(name: "decoding error", expected: .error(.decoding, nil)) { client, base in
            try CallOutcome.json(try await client.get(url: url(base, "/api/health"), responseType: [User].self))
        },
    ]

    /// Short backoff; a `Retry-After` is never waited for (so 429 fails at once, live and replayed).
    static let livePolicy = RetryPolicy(maxRetries: 3, baseDelay: .milliseconds(5), maxRetryAfter: .zero)

    /// The same decisions as `livePolicy`, with replay's one-second base delay: if replay waited
    /// between attempts, the flaky call would take six seconds.
    static var replayConfiguration: APIClient.Configuration {
        var configuration = ReplayAPIClient.defaultConfiguration
        configuration.retryPolicy.maxRetryAfter = livePolicy.maxRetryAfter
        configuration.retryPolicy.maxRetries = livePolicy.maxRetries
        return configuration
    }

    func run(_ client: any APIClientProtocol, base: URL) async -> [CallOutcome] {
        var outcomes: [CallOutcome] = []
        for call in Self.calls {
            outcomes.append(await CallOutcome.of { try await call.run(client, base) })
        }
        return outcomes
    }

    func recordLiveSession() async throws -> (base: URL, outcomes: [CallOutcome]) {
        try await withSampleAPI { base in
            try await withRecordingTransport(path: store, mode: .missing) { transport in
                var configuration = APIClient.Configuration()
                configuration.retryPolicy = Self.livePolicy
                let live = APIClient(transport: transport, configuration: configuration)
                return (base, await run(live, base: base))
            }
        }
    }

    /// The credentials and secret parameters the calls send; the sample API echoes some of them.
    static let sentSecrets = ["parity-token-42", "expired", "parity"]
    /// Those the replay answers with `REDACTED`: a credential the response echoes comes back as
    /// the replaying client sends it (docs/redaction.md, "Secrets a server echoes"), here the same
    /// `Bearer expired`; a secret query value stays redacted.
    static let unechoedSecrets = ["parity"]

    @Test func everyEndpointReplaysToTheLiveValuesAndErrorsWithTheSampleAPIStopped() async throws {
        let (base, live) = try await recordLiveSession()
        for (call, outcome) in zip(Self.calls, live) {
            switch (call.expected, outcome) {
            case (.value, .value):
                break
            case (.error(let category, let status), .apiError(let actualCategory, let actualStatus, _)):
                #expect(actualCategory == category && actualStatus == status, "\(call.name): \(outcome)")
            default:
                Issue.record("\(call.name): live gave \(outcome), expected \(call.expected)")
            }
        }
        let encodings = Dictionary(try await storedInteractions(store).map { ($0.key, $0.contentEncoding) }, uniquingKeysWith: { first, _ in first })
        #expect(encodings["GET /api/users"] == "gzip", "the users list came compressed")
        #expect(encodings["GET /api/nutrition/history"] == "gzip", "the history came compressed")

        let stopped = try await #require(throws: TransportError.self) { try await TransportChoice.default.transport().send(.get, base, "/api/health") }
        #expect(stopped.kind == .cannotConnect)

        let replay = try await ReplayAPIClient.open(path: store, cassette: "dev", configuration: Self.replayConfiguration)
        let replayed = await run(replay, base: base)
        for (index, call) in Self.calls.enumerated() {
            #expect(replayed[index] == live[index].redacting(Self.unechoedSecrets), "\(call.name)")
        }
        #expect(replay.session.statistics.missed == 0)
    }

    @Test func theReplayedRetrySequenceReproducesTheLiveResultWithoutWaiting() async throws {
        let (base, live) = try await recordLiveSession()
        let flaky = try #require(Self.calls.firstIndex { $0.name.hasPrefix("flaky") })
        #expect(live[flaky] == .value(try CallOutcome.json(FlakyResult(key: "parity", attempts: 3))))
        let rows = try await storedInteractions(store).filter { $0.url.contains("/api/flaky") }
        #expect(rows.map(\.statusCode) == [503, 503, 200])

        let clock = TestClock()
        var configuration = Self.replayConfiguration
        configuration.clock = clock
        let replay = try await ReplayAPIClient.open(path: store, cassette: "dev", configuration: configuration)
        let replayed = await CallOutcome.of { try await Self.calls[flaky].run(replay, base) }
        // The live client waited 2 s + 4 s with its 1 s base delay; the replay does not wait at all.
        #expect(clock.sleeps.isEmpty)
        #expect(replayed == live[flaky].redacting(Self.sentSecrets))
        #expect(replay.session.statistics.replayed == 3)
    }
}
