import Foundation
import HTTPTypes
import WellPlateCore

/// When and how long to wait before sending a request again. Only requests that are safe to repeat
/// are retried: idempotent methods, and POST/PATCH that carry an `Idempotency-Key` header.
public struct RetryPolicy: Sendable, Equatable {
    /// Retries after the first attempt; 3 means up to 4 attempts.
    public var maxRetries: Int
    /// Retry n (1-based) waits `baseDelay * 2^n`: 2 s, 4 s, 8 s with the default of one second.
    public var baseDelay: Duration
    /// A `Retry-After` longer than this is not waited for; the error is reported instead.
    public var maxRetryAfter: Duration
    /// Response statuses worth retrying; by default 429, 502, 503 and 504.
    public var retryableStatusCodes: Set<Int>
    /// Whether attempts are spaced out in time. Replay turns this off: it retries exactly when the
    /// live client did, so recorded retry sequences play back, but without the waiting.
    public var waitsBetweenAttempts: Bool

    /// A policy with the given limits; a negative `maxRetries` counts as zero.
    public init(
        maxRetries: Int = 3,
        baseDelay: Duration = .seconds(1),
        maxRetryAfter: Duration = .seconds(60),
        retryableStatusCodes: Set<Int> = [429, 502, 503, 504],
        waitsBetweenAttempts: Bool = true
    ) {
        self.maxRetries = max(0, maxRetries)
        self.baseDelay = baseDelay
        self.maxRetryAfter = maxRetryAfter
        self.retryableStatusCodes = retryableStatusCodes
        self.waitsBetweenAttempts = waitsBetweenAttempts
    }

    /// Up to 3 retries, backing off from 2 s, for statuses 429, 502, 503 and 504.
    public static let `default` = RetryPolicy()
    /// No retries.
    public static let never = RetryPolicy(maxRetries: 0)
    /// The live policy's decisions without its delays, for replaying recordings.
    public static let replay = RetryPolicy(waitsBetweenAttempts: false)

    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!

    /// Whether repeating this request cannot apply its effect twice.
    public func isRetryable(method: HTTPMethod, headerFields: HTTPFields) -> Bool {
        method.isIdempotent || headerFields[Self.idempotencyKey] != nil
    }

    /// The wait before retry number `retry` (1-based). A `Retry-After` from the server wins over the
    /// backoff; `nil` means the server asked for longer than `maxRetryAfter`, so give up.
    public func delay(beforeRetry retry: Int, retryAfter: Duration?) -> Duration? {
        if let retryAfter {
            return retryAfter <= maxRetryAfter ? retryAfter : nil
        }
        return baseDelay * (1 << min(retry, 30))
    }

    /// Parses `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
    public static func parseRetryAfter(_ value: String, now: Date = Date()) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed), seconds >= 0 {
            return .seconds(seconds)
        }
        guard let date = HTTPDate.parse(trimmed) else { return nil }
        return .clampedSeconds(date.timeIntervalSince(now))
    }
}
