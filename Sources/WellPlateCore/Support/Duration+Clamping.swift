import Foundation

extension Duration {
    /// Milliseconds with their fraction, as the store keeps durations and offsets.
    package var fractionalMilliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }

    /// Whole milliseconds, rounded down and held between 0 and `Int64.max`, for C APIs that take a
    /// count (libcurl, SQLite) and must never see an overflowed or negative value.
    package var clampedMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let (milliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return .max }
        let (total, overflowAgain) = milliseconds.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        return overflowAgain ? .max : total
    }

    /// `seconds` as a `Duration`, held between zero and about 31,700 years so the conversion cannot
    /// trap; for values a peer sends (an HTTP date in `Retry-After`), which a later check compares
    /// against a limit anyway.
    package static func clampedSeconds(_ seconds: Double) -> Duration {
        .seconds(seconds.isNaN ? 0 : min(max(seconds, 0), 1e12))
    }

    /// `milliseconds` to the microsecond, held between zero and about 31.7 years; for durations
    /// read back from a cassette file, which anything may have written.
    package static func clampedMilliseconds(_ milliseconds: Double) -> Duration {
        let clamped = milliseconds.isNaN ? 0 : min(max(milliseconds, 0), 1e12)
        return .microseconds(Int64((clamped * 1000).rounded()))
    }
}
