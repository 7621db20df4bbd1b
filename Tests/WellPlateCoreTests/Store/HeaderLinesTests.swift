import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// The store's header text: UTF-8 values as they are, other bytes escaped and restored exactly.
@Suite("Stored header lines")
struct HeaderLinesTests {
    @Test func utf8ValuesAreWrittenAsTheyAre() {
        var fields = HTTPFields()
        fields.append(HTTPField(name: HTTPField.Name("X-Note")!, value: "café ✓ 100%"))
        #expect(HeaderLines.encode(fields) == "X-Note: café ✓ 100%\n")
        #expect(HeaderLines.decode(HeaderLines.encode(fields)) == fields)
    }

    @Test func latin1BytesComeBackByteForByte() {
        var fields = HTTPFields()
        let bytes: [UInt8] = Array("caf".utf8) + [0xE9] + Array(" 100%".utf8)
        fields.append(HTTPField(name: HTTPField.Name("X-Note")!, value: bytes))
        #expect(HeaderLines.encode(fields) == "X-Note:% caf%E9 100%25\n")
        let decoded = HeaderLines.decode(HeaderLines.encode(fields))
        #expect(decoded.first?.withUnsafeBytesOfValue { Array($0) } == bytes)
    }

    @Test(arguments: [0, 1, 2, 5])
    func theDecodedEncodingMarkerKeepsItsPlace(_ position: Int) {
        let fields: HTTPFields = [.date: "Mon, 01 Jun 2026 00:00:00 GMT", .contentType: "application/json"]
        let text = HeaderLines.encode(fields, decodedEncodingAt: position)
        let decoded = HeaderLines.decodeMarked(text)
        #expect(decoded.fields == fields)
        #expect(decoded.decodedEncodingPosition == min(position, fields.count))
    }

    @Test func aReaderThatDoesNotKnowTheMarkerSkipsIt() {
        // What a build from before the marker reads: its decoder drops lines without a colon.
        let fields: HTTPFields = [.contentType: "application/json"]
        #expect(HeaderLines.decode("(Content-Encoding)\nContent-Type: application/json\n") == fields)
        #expect(HeaderLines.encode(fields, decodedEncodingAt: 0) == "(Content-Encoding)\nContent-Type: application/json\n")
    }
}
