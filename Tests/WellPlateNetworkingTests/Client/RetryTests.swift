import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

@Suite("Retries: only where safe, with backoff and Retry-After")
struct RetryTests {
    private func attempts(_ base: URL, key: String) async throws -> Int {
        let client = try TestClients.live(retryPolicy: .never)
        return try await client.get(url: base.appending(pathAndQuery: "/api/flaky/count?key=\(key)"), responseType: FlakyResult.self).attempts
    }

    @Test(arguments: [HTTPMethod.get, .put, .delete])
    func idempotentRequestsAreRetriedUntilTheySucceed(method: HTTPMethod) async throws {
        try await withSampleAPI { base in
            let client = try TestClients.live()
            let result = try await client.request(
                url: base.appending(pathAndQuery: "/api/flaky?key=k&failures=2"), method: method, headers: nil, body: nil, responseType: FlakyResult.self)
            #expect(result.attempts == 3)
            #expect(try await attempts(base, key: "k") == 3)
        }
    }

    @Test(arguments: [HTTPMethod.post, .patch])
    func nonIdempotentRequestsAreSentOnce(method: HTTPMethod) async throws {
        try await withSampleAPI { base in
            let client = try TestClients.live()
            do {
                _ = try await client.request(
                    url: base.appending(pathAndQuery: "/api/flaky?key=once&failures=1"), method: method, headers: nil, body: Data("{}".utf8),
                    responseType: FlakyResult.self)
                Issue.record("the failing \(method.rawValue) succeeded")
            } catch let error as APIError {
                #expect(error.statusCode == 503)
            }
            #expect(try await attempts(base, key: "once") == 1)
        }
    }

    @Test func anIdempotencyKeyMakesPostRetryable() async throws {
        try await withSampleAPI { base in
            let client = try TestClients.live()
            let result = try await client.post(
                url: base.appending(pathAndQuery: "/api/flaky?key=idem&failures=1"), headers: ["Idempotency-Key": "order-17"], body: Data("{}".utf8),
                responseType: FlakyResult.self)
            #expect(result.attempts == 2)
        }
    }

    @Test(arguments: [429, 502, 503, 504])
    func retryableStatusesAreRetried(status: Int) async throws {
        try await withSampleAPI { base in
            let client = try TestClients.live()
            let result = try await client.get(
                url: base.appending(pathAndQuery: "/api/flaky?key=s\(status)&failures=1&status=\(status)"), responseType: FlakyResult.self)
            #expect(result.attempts == 2)
        }
    }

    @Test(arguments: [500, 400, 404])
    func otherStatusesAreNotRetried(status: Int) async throws {
        try await withSampleAPI { base in
            let client = try TestClients.live()
            await #expect(throws: APIError.self) {
                _ = try await client.get(
                    url: base.appending(pathAndQuery: "/api/flaky?key=n\(status)&failures=1&status=\(status)"), responseType: FlakyResult.self)
            }
            #expect(try await attempts(base, key: "n\(status)") == 1)
        }
    }

    @Test func atMostThreeRetries() async throws {
        try await withSampleAPI { base in
            let client = try TestClients.live()
            do {
                _ = try await client.get(url: base.appending(pathAndQuery: "/api/flaky?key=many&failures=10"), responseType: FlakyResult.self)
                Issue.record("succeeded although every attempt fails")
            } catch let error as APIError {
                #expect(error.statusCode == 503)
            }
            #expect(try await attempts(base, key: "many") == 4)
        }
    }

    @Test func retryAfterIsHonoured() async throws {
        try await withSampleAPI { base in
            // Backoff alone would wait 10 ms; the server asks for one second.
            let clock = TestClock()
            let client = try TestClients.live { $0.clock = clock }
            let result = try await client.get(
                url: base.appending(pathAndQuery: "/api/flaky?key=ra&failures=1&status=429&retryAfter=1"), responseType: FlakyResult.self)
            #expect(result.attempts == 2)
            #expect(clock.sleeps == [.seconds(1)])
        }
    }

    @Test func aRetryAfterBeyondTheLimitIsNotWaitedFor() async throws {
        try await withSampleAPI { base in
            let clock = TestClock()
            let client = try TestClients.live(retryPolicy: RetryPolicy(maxRetries: 3, baseDelay: .milliseconds(5), maxRetryAfter: .seconds(2))) {
                $0.clock = clock
            }
            await #expect(throws: APIError.self) {
                _ = try await client.get(
                    url: base.appending(pathAndQuery: "/api/flaky?key=long&failures=1&status=503&retryAfter=120"), responseType: FlakyResult.self)
            }
            // The server asked for 120 s: not waited for, and not retried.
            #expect(clock.sleeps.isEmpty)
            #expect(try await attempts(base, key: "long") == 1)
        }
    }

    @Test func connectionRefusedIsRetriedThenReported() async throws {
        try await Ports.withRefusingPort { port in
            let client = try TestClients.live()
            do {
                _ = try await client.get(url: URL(string: "http://127.0.0.1:\(port)/api/health")!, responseType: Health.self)
                Issue.record("a dead port answered")
            } catch let error as APIError {
                #expect(error.category == .cannotConnect)
                #expect(error.localizedDescription.contains("127.0.0.1:\(port)"))
            }
        }
    }

    @Test func backoffDoublesFromTheBase() {
        let policy = RetryPolicy()
        #expect(policy.delay(beforeRetry: 1, retryAfter: nil) == .seconds(2))
        #expect(policy.delay(beforeRetry: 2, retryAfter: nil) == .seconds(4))
        #expect(policy.delay(beforeRetry: 3, retryAfter: nil) == .seconds(8))
        #expect(policy.delay(beforeRetry: 1, retryAfter: .seconds(7)) == .seconds(7))
        #expect(policy.delay(beforeRetry: 1, retryAfter: .seconds(61)) == nil)
    }

    @Test func retryAfterParsesSecondsAndHTTPDates() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(RetryPolicy.parseRetryAfter("3") == .seconds(3))
        #expect(RetryPolicy.parseRetryAfter(" 0 ") == .seconds(0))
        #expect(RetryPolicy.parseRetryAfter("-1") == nil)
        #expect(RetryPolicy.parseRetryAfter("soon") == nil)
        // 1_700_000_000 is Tue, 14 Nov 2023 22:13:20 GMT.
        #expect(RetryPolicy.parseRetryAfter("Tue, 14 Nov 2023 22:13:30 GMT", now: now) == .seconds(10))
        #expect(RetryPolicy.parseRetryAfter("Tue, 14 Nov 2023 22:13:00 GMT", now: now) == .zero)
    }
}
