import WellPlateCore

/// A span of time that came from outside the program (a configuration key, an environment variable,
/// a command-line flag, a stored recording), checked once against a fixed range.
///
/// This is the one place where numbers become `Duration`s and `Duration`s become integers. The
/// standard conversions trap: `Int64(seconds * 1000)` on infinity or anything past 9.2e15, and
/// `seconds * 1_000_000_000` in nanoseconds past 292 years. A `Seconds` is finite and at most a day,
/// so every later step (libcurl's milliseconds, NIO's nanoseconds, doubling for backoff) stays in range.
public struct Seconds: Sendable, Hashable, Comparable {
    /// One day: longer than any timeout, delay or latency worth asking for, and far inside what
    /// every consumer of a `Duration` can hold.
    public static let maximum: Double = 86_400

    /// The number of seconds.
    public let value: Double

    /// `nil` unless `value` is finite, not above `maximum`, and above zero (or zero when `allowsZero`).
    public init?(_ value: Double, allowsZero: Bool) {
        guard value.isFinite, value <= Self.maximum, allowsZero ? value >= 0 : value > 0 else { return nil }
        self.value = value
    }

    /// `nil` unless `milliseconds / 1000` is a valid `Seconds`.
    public init?(milliseconds: Double, allowsZero: Bool) {
        self.init(milliseconds / 1000, allowsZero: allowsZero)
    }

    /// The nearest valid value: NaN and negatives become zero, anything above `maximum` becomes
    /// `maximum`. For values that were never validated, such as an `AppConfig` built in code.
    public init(clamping value: Double) {
        self.value = value.isNaN ? 0 : min(max(value, 0), Self.maximum)
    }

    /// The range the failable initializers accept, for error messages ("accepted: ...").
    public static func acceptedRange(allowsZero: Bool) -> String {
        allowsZero
            ? "a number of seconds from 0 to 86400 (one day)"
            : "a number of seconds greater than 0 and at most 86400 (one day)"
    }

    /// Exact to the nanosecond.
    public var duration: Duration {
        .nanoseconds(Int64((value * 1e9).rounded()))
    }

    /// Whether `lhs` is the shorter span.
    public static func < (lhs: Seconds, rhs: Seconds) -> Bool {
        lhs.value < rhs.value
    }
}
