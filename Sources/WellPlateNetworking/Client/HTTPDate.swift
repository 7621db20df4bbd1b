import Foundation
import WellPlateCore

/// Reads an HTTP date in the IMF-fixdate form every server sends (RFC 9110 §5.6.7):
/// `Sun, 06 Nov 1994 08:49:37 GMT`. Hand-written rather than a `DateFormatter`, which on Linux
/// leaks memory on some malformed input (found by scripts/fuzz.sh) and costs an allocation-heavy
/// set-up per call, while the value comes from whatever server answered.
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let weekdays: Set<Substring> = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// The date, or `nil` when `text` is not an IMF-fixdate with valid fields.
    static func parse(_ text: String) -> Date? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), weekdays.contains(parts[0].dropLast()),
            parts[1].count == 2, let day = number(parts[1]),
            let monthIndex = months.firstIndex(where: { $0 == parts[2] }),
            parts[3].count == 4, let year = number(parts[3]),
            parts[5] == "GMT"
        else { return nil }
        let time = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard time.count == 3, time.allSatisfy({ $0.count == 2 }),
            let hour = number(time[0]), let minute = number(time[1]), let second = number(time[2]),
            hour < 24, minute < 60, second < 61,
            day >= 1, day <= daysInMonth(monthIndex + 1, year: year)
        else { return nil }
        let days = daysSinceEpoch(year: year, month: monthIndex + 1, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    private static func number(_ digits: Substring) -> Int? {
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(digits)
    }

    private static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
