import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// A 401 refreshed once and sent again, unauthorized handled in one place, against the sample API
/// whose `expired` token it refuses, through every transport of this build. The sample API counts
/// on its side what arrived (`GET /api/auth/counts`).
@Suite("Refreshing credentials on a 401")
struct CredentialRefreshTests {
    static let choices = TransportChoice.allCases.filter(\.isAvailable)

    struct Profile: Codable, Equatable {
        let id: Int
        let name: String
    }

    /// A client of the sample API at `base` with the app's credentials and an `onUnauthorized` counting into `hook`.
    static func client(_ choice: TransportChoice, _ credentials: SampleAPICredentials, hook: Tally) throws -> APIClient {
        var configuration = APIClient.Configuration()
        configuration.retryPolicy = RetryPolicy(maxRetries: 3, baseDelay: .milliseconds(5))
        configuration.timeout = Patience.request
        credentials.install(in: &configuration)
        configuration.countUnauthorized(in: hook)
        return APIClient(transport: try choice.transport(), configuration: configuration)
    }

    @Test(arguments: choices)
    func anExpiredTokenIsRefreshedOnceAndTheRequestSentAgainWithTheNewOne(_ choice: TransportChoice) async throws {
        try await withSampleAPI { base in
            let credentials = SampleAPICredentials(base: base, refreshToken: "rt_valid")
            let hook = Tally()
            let client = try Self.client(choice, credentials, hook: hook)
            let me = base.appending(pathAndQuery: "/api/me")
            let notifications = try await userUnauthorizedNotifications(of: client) {
                let profile = try await client.get(url: me, responseType: Profile.self)
                #expect(profile == Profile(id: 1, name: "Ada Lovelace"))
            }
            #expect(credentials.currentAccessToken.hasPrefix("at_"))
            #expect(try await AuthCounts.at(base) == AuthCounts(profile_requests: 2, rejected: 1, refreshes: 1))
            #expect(hook.count == 0 && notifications == 0)
            // The new token stays: the next request needs no refresh.
            _ = try await client.get(url: me, responseType: Profile.self)
            #expect(try await AuthCounts.at(base) == AuthCounts(profile_requests: 3, rejected: 1, refreshes: 1))
        }
    }

    @Test(arguments: choices)
    func aRequestThatIsNeverRetriedIsStillSentAgainAfterARefresh(_ choice: TransportChoice) async throws {
        try await withSampleAPI { base in
            let credentials = SampleAPICredentials(base: base, refreshToken: "rt_valid")
            let client = try Self.client(choice, credentials, hook: Tally())
            #expect(!RetryPolicy.default.isRetryable(method: .patch, headerFields: [:]))
            let patched = try await client.patch(
                url: base.appending(pathAndQuery: "/api/me"), body: Data(#"{"name":"Ada King"}"#.utf8), responseType: Profile.self)
            #expect(patched == Profile(id: 1, name: "Ada King"))
            #expect(try await AuthCounts.at(base) == AuthCounts(profile_requests: 2, rejected: 1, refreshes: 1))
        }
    }

    @Test(arguments: choices)
    func aFailedRefreshRunsTheHookAndPostsTheNotificationOnceThenThrowsThe401(_ choice: TransportChoice) async throws {
        try await withSampleAPI { base in
            // The refresh call goes through the client being refreshed: its own 401 must reach
            // the refresh (which then throws) instead of waiting for the refresh it is part of.
            let credentials = SampleAPICredentials(base: base, refreshToken: "revoked")
            let hook = Tally()
            let client = try Self.client(choice, credentials, hook: hook)
            credentials.refresh(through: client)
            let notifications = try await userUnauthorizedNotifications(of: client) {
                let error = try await #require(throws: APIError.self) {
                    try await client.get(url: base.appending(pathAndQuery: "/api/me"), responseType: Profile.self)
                }
                #expect(error.category == .unauthorized && error.statusCode == 401)
                #expect(error.localizedKey == "error.auth.unauthorized")
                #expect(error.localizedDescription.contains("The bearer token has expired"), "the 401 of /api/me, not the refresh's")
                #expect(hook.count == 1, "the hook ran before the error was thrown")
            }
            #expect(notifications == 1)
            #expect(hook.count == 1)
            #expect(try await AuthCounts.at(base) == AuthCounts(profile_requests: 1, rejected: 1, refreshes: 1))
        }
    }

    @Test(arguments: choices)
    func aRefreshCallRefusedThroughAnotherClientIsReportedOnlyByTheClientThatRefreshed(_ choice: TransportChoice) async throws {
        try await withSampleAPI { base in
            let credentials = SampleAPICredentials(base: base, refreshToken: "revoked")
            let hook = Tally()
            let client = try Self.client(choice, credentials, hook: hook)
            // A client without a refresh reports its own 401s, but not one inside another's refresh.
            let plainHook = Tally()
            var plainConfiguration = APIClient.Configuration()
            plainConfiguration.countUnauthorized(in: plainHook)
            let plain = APIClient(transport: try choice.transport(), configuration: plainConfiguration)
            credentials.refresh(through: plain)
            var notifications = 0
            let plainNotifications = await userUnauthorizedNotifications(of: plain) {
                notifications = await userUnauthorizedNotifications(of: client) {
                    await #expect(throws: APIError.self) {
                        try await client.get(url: base.appending(pathAndQuery: "/api/me"), responseType: Profile.self)
                    }
                }
            }
            #expect(hook.count == 1 && notifications == 1)
            #expect(plainHook.count == 0 && plainNotifications == 0)
            #expect(try await AuthCounts.at(base) == AuthCounts(profile_requests: 1, rejected: 1, refreshes: 1))
        }
    }

    @Test(arguments: choices)
    func withoutARefreshThe401RunsTheHookAndPostsTheNotificationOnce(_ choice: TransportChoice) async throws {
        try await withSampleAPI { base in
            let hook = Tally()
            var configuration = APIClient.Configuration()
            configuration.defaultHeaders = ["Authorization": "Bearer expired"]
            configuration.countUnauthorized(in: hook)
            let client = APIClient(transport: try choice.transport(), configuration: configuration)
            let notifications = try await userUnauthorizedNotifications(of: client) {
                let error = try await #require(throws: APIError.self) {
                    try await client.get(url: base.appending(pathAndQuery: "/api/me"), responseType: Profile.self)
                }
                #expect(error.category == .unauthorized)
            }
            #expect(notifications == 1 && hook.count == 1)
            #expect(try await AuthCounts.at(base) == AuthCounts(profile_requests: 1, rejected: 1, refreshes: 0))
        }
    }

    @Test(arguments: choices)
    func aRefreshAfterWhichTheServerStillAnswers401IsNotRepeated(_ choice: TransportChoice) async throws {
        try await withSampleAPI { base in
            // `stale` is refreshed "successfully" to the token `expired`, which the server refuses again.
            let credentials = SampleAPICredentials(base: base, refreshToken: "stale")
            let hook = Tally()
            let client = try Self.client(choice, credentials, hook: hook)
            let notifications = try await userUnauthorizedNotifications(of: client) {
                let error = try await #require(throws: APIError.self) {
                    try await client.get(url: base.appending(pathAndQuery: "/api/me"), responseType: Profile.self)
                }
                #expect(error.category == .unauthorized)
            }
            #expect(try await AuthCounts.at(base) == AuthCounts(profile_requests: 2, rejected: 2, refreshes: 1), "two requests in all")
            #expect(hook.count == 1 && notifications == 1, "credentials the server refused after a refresh are reported once")
        }
    }

    @Test(arguments: choices)
    func fiveConcurrent401sShareOneRefresh(_ choice: TransportChoice) async throws {
        try await withSampleAPI { base in
            let credentials = SampleAPICredentials(base: base, refreshToken: "rt_valid", gatheringFirst: 5)
            let hook = Tally()
            let client = try Self.client(choice, credentials, hook: hook)
            let me = base.appending(pathAndQuery: "/api/me")
            let profiles = try await withThrowingTaskGroup(of: Profile.self) { group in
                for _ in 0..<5 { group.addTask { try await client.get(url: me, responseType: Profile.self) } }
                return try await group.reduce(into: [Profile]()) { $0.append($1) }
            }
            #expect(profiles.count == 5)
            let counts = try await AuthCounts.at(base)
            // All five were sent with the expired token (however their 401s interleave with the
            // refresh), then each once more with the new one.
            #expect(counts == AuthCounts(profile_requests: 10, rejected: 5, refreshes: 1))
            #expect(hook.count == 0)
        }
    }

    @Test(arguments: choices)
    func fiveConcurrentRequestsWhoseRefreshFailsReportUnauthorizedOnce(_ choice: TransportChoice) async throws {
        try await withSampleAPI { base in
            let credentials = SampleAPICredentials(base: base, refreshToken: "revoked", gatheringFirst: 5)
            let hook = Tally()
            let client = try Self.client(choice, credentials, hook: hook)
            let me = base.appending(pathAndQuery: "/api/me")
            let notifications = await userUnauthorizedNotifications(of: client) {
                let categories = await withTaskGroup(of: APIError.Category?.self) { group in
                    for _ in 0..<5 {
                        group.addTask {
                            do {
                                _ = try await client.get(url: me, responseType: Profile.self)
                                return nil
                            } catch {
                                return (error as? APIError)?.category
                            }
                        }
                    }
                    return await group.reduce(into: [APIError.Category?]()) { $0.append($1) }
                }
                #expect(categories == Array(repeating: .unauthorized, count: 5))
            }
            #expect(hook.count == 1 && notifications == 1)
            let counts = try await AuthCounts.at(base)
            #expect(counts.refreshes == 1 && counts.profile_requests == 5 && counts.rejected == 5)
        }
    }
}
