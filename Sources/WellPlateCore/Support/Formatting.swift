import Foundation

/// How sizes, times and durations are written, the same way in every command.
package enum Formatting {
    /// `512 B`, `1.5 KiB`, `12.0 MiB`: binary units, one decimal, independent of the locale.
    package static func byteCount(_ bytes: Int) -> String {
        guard bytes >= 1024 else { return "\(bytes) B" }
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes) / 1024
        var unit = 0
        while value >= 1023.95 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }

    /// ISO 8601 in UTC to the second, e.g. `2025-03-01T14:05:09Z`.
    package static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(secondsFromGMT: 0)!))
    }

    /// Milliseconds rounded to the microsecond, so JSON output does not print binary noise.
    package static func milliseconds(_ value: Double) -> Double {
        (value * 1000).rounded() / 1000
    }

    /// `12.3 ms`, `1.25 s`.
    package static func duration(milliseconds value: Double) -> String {
        if value < 1000 {
            let tenths = Int((value * 10).rounded())
            return "\(tenths / 10).\(tenths % 10) ms"
        }
        let hundredths = Int((value / 10).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction) s"
    }

    /// `1 recording`, `3 recordings`.
    package static func count(_ number: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(number) \(number == 1 ? singular : plural ?? singular + "s")"
    }
}
