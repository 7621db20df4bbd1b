import WellPlateCore
import WellPlateNetworking

/// A string format that schema inference recognizes. Raw values are the JSON Schema `format` names.
///
/// Detection is strict so that a format is only claimed when a validator would accept every sample:
/// a timestamp without a time zone is not a `date-time`, and only http(s) URLs count as `uri`.
package enum StringFormat: String, Sendable, Hashable, CaseIterable, Codable {
    /// RFC 3339 `date-time`: `2024-05-01T12:30:00Z`, `2024-05-01T12:30:00.123+02:00`.
    case dateTime = "date-time"
    /// RFC 3339 `full-date`: `2024-05-01`.
    case date
    /// RFC 9562 UUID in its 8-4-4-4-12 hexadecimal form, either case.
    case uuid
    /// An absolute `http` or `https` URL with a host.
    case uri

    /// The format every sample of `string` would satisfy, or `nil` when it has none of these.
    package static func detect(_ string: String) -> StringFormat? {
        var string = string
        return string.withUTF8 { bytes in
            guard let first = bytes.first else { return nil }
            switch first {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if bytes.count == 10 { return isFullDate(bytes, from: 0) ? .date : nil }
                if isDateTime(bytes) { return .dateTime }
                return isUUID(bytes) ? .uuid : nil
            case UInt8(ascii: "h"), UInt8(ascii: "H"):
                return isHTTPURL(bytes) ? .uri : nil
            default:
                return isUUID(bytes) ? .uuid : nil
            }
        }
    }

    // MARK: Dates

    private static func digits(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int? {
        guard start + count <= bytes.count else { return nil }
        var value = 0
        for index in start..<start + count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int(digit)
        }
        return value
    }

    private static func byte(_ bytes: UnsafeBufferPointer<UInt8>, _ index: Int, is expected: Character) -> Bool {
        index < bytes.count && bytes[index] == expected.asciiValue
    }

    /// `YYYY-MM-DD` at `start`, with a day that exists in that month.
    private static func isFullDate(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Bool {
        guard let year = digits(bytes, start, 4), byte(bytes, start + 4, is: "-"),
            let month = digits(bytes, start + 5, 2), byte(bytes, start + 7, is: "-"),
            let day = digits(bytes, start + 8, 2), (1...12).contains(month), day >= 1
        else { return false }
        switch month {
        case 2:
            let isLeapYear = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            return day <= (isLeapYear ? 29 : 28)
        case 4, 6, 9, 11:
            return day <= 30
        default:
            return day <= 31
        }
    }

    /// RFC 3339 section 5.6: full-date "T" partial-time time-offset, "T" and "Z" in either case.
    private static func isDateTime(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= 20, isFullDate(bytes, from: 0), bytes[10] | 0x20 == UInt8(ascii: "t"),
            let hour = digits(bytes, 11, 2), byte(bytes, 13, is: ":"),
            let minute = digits(bytes, 14, 2), byte(bytes, 16, is: ":"),
            let second = digits(bytes, 17, 2),
            hour <= 23, minute <= 59, second <= 60  // 60: a leap second
        else { return false }
        var index = 19
        if byte(bytes, index, is: ".") {
            index += 1
            let fractionStart = index
            while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 { index += 1 }
            guard index > fractionStart else { return false }
        }
        guard index < bytes.count else { return false }
        if bytes[index] | 0x20 == UInt8(ascii: "z") {
            return index + 1 == bytes.count
        }
        guard bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-"),
            let offsetHour = digits(bytes, index + 1, 2), byte(bytes, index + 3, is: ":"),
            let offsetMinute = digits(bytes, index + 4, 2)
        else { return false }
        return offsetHour <= 23 && offsetMinute <= 59 && index + 6 == bytes.count
    }

    // MARK: UUID

    private static func isUUID(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            switch index {
            case 8, 13, 18, 23:
                guard byte == UInt8(ascii: "-") else { return false }
            default:
                guard byte.isHexDigit else { return false }
            }
        }
        return true
    }

    // MARK: URL

    /// Whether `bytes` starts with the lower-case ASCII `prefix`, ignoring the case of letters.
    private static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        guard bytes.count >= prefix.utf8CodeUnitCount else { return false }
        for index in 0..<prefix.utf8CodeUnitCount {
            let expected = prefix.utf8Start[index]
            let byte = bytes[index]
            let folded = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
            guard folded == expected else { return false }
        }
        return true
    }

    /// `http://` or `https://` (scheme in any case), then a non-empty host, and no whitespace,
    /// control characters or quotes anywhere: such a string is a URL to any reader.
    private static func isHTTPURL(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let prefixLength: Int
        if hasPrefix(bytes, "https://") {
            prefixLength = 8
        } else if hasPrefix(bytes, "http://") {
            prefixLength = 7
        } else {
            return false
        }
        guard prefixLength < bytes.count else { return false }
        let host = bytes[prefixLength]
        guard host != UInt8(ascii: "/"), host != UInt8(ascii: "?"), host != UInt8(ascii: "#"),
            host != UInt8(ascii: ":")
        else { return false }
        return !bytes.contains { $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") }
    }
}

private extension UInt8 {
    var isHexDigit: Bool {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
        default: false
        }
    }
}
