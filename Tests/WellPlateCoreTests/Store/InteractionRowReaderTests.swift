import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// Opening a cassette leaves out a `Content-Length` line that only restates the body's length,
/// so header blocks that differ by nothing else are shared.
@Suite("Interaction row reader")
struct InteractionRowReaderTests {
    func line(in text: String, length: Int) -> String? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            InteractionRowReader.contentLengthLine(in: buffer, equalTo: length).map { String(decoding: bytes[$0], as: UTF8.self) }
        }
    }

    @Test func findsTheLineWhenItStatesTheBodyLength() {
        #expect(line(in: "Content-Type: application/json\nContent-Length: 232\nX-A: b\n", length: 232) == "Content-Length: 232\n")
        #expect(line(in: "Content-Length: 0\n", length: 0) == "Content-Length: 0\n")
        #expect(line(in: "X-A: b\ncontent-length: 17", length: 17) == "content-length: 17", "any case; the last line may lack its newline")
    }

    @Test(arguments: [
        ("Content-Length: 233\n", 232),  // another length: kept, it says something
        ("Content-Length: 23\n", 232),
        ("Content-Length: 2320\n", 232),
        ("Content-Length: 23a\n", 23),
        ("Content-Length: \n", 0),
        ("X-Content-Length: 232\n", 232),  // only a field of its own, at a line start
        ("X-Note: Content-Length: 232\n", 232),
        ("Content-Type: text/plain\n", 232),
        ("", 0),
    ])
    func leavesEverythingElse(text: String, length: Int) {
        #expect(line(in: text, length: length) == nil)
    }
}
