import Foundation
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

@Suite("HTTP dates")
struct HTTPDateTests {
    @Test(arguments: [
        ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777.0),
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
        ("Tue, 29 Feb 2000 12:00:00 GMT", 951_825_600),
        ("Fri, 31 Dec 9999 23:59:59 GMT", 253_402_300_799),
        ("Wed, 31 Dec 1969 23:59:59 GMT", -1),
    ])
    func readsIMFFixdates(text: String, seconds: Double) {
        #expect(HTTPDate.parse(text) == Date(timeIntervalSince1970: seconds))
    }

    @Test(arguments: [
        "Mon, 29 Feb 2023 00:00:00 GMT", "Tue, 14 Nov 2023 22:13:30 UTC", "Tue, 14 Nov 2023 24:00:00 GMT",
        "Tue, 14 Nov 23 22:13:30 GMT", "Tuesday, 14-Nov-23 22:13:30 GMT", "Tue, 14 Nov 2023 22:13:30", "",
        "Tue, +1 Nov 2023 22:13:30 GMT", "Tue, 14 nov 2023 22:13:30 GMT",
        // Found by scripts/fuzz.sh: made Foundation's DateFormatter leak on Linux.
        "{\"a\u{8D}\u{8D}\u{8D}\":false}",
    ])
    func rejectsAnythingElse(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test func agreesWithFoundationsFormatter() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var generator = SeededGenerator(seed: 11)
        for _ in 0..<500 {
            let date = Date(timeIntervalSince1970: Double(Int64.random(in: -2_000_000_000...40_000_000_000, using: &generator)))
            let text = formatter.string(from: date)
            #expect(HTTPDate.parse(text) == date, "\(text)")
        }
    }
}
