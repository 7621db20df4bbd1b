import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `loadedKeysAreASCII` lets the replay proxy read request heads without keeping their raw bytes;
/// it must be false as soon as one key could be matched by a head that is not UTF-8.
@Suite("Replay index key bytes")
struct ReplayIndexKeyBytesTests {
    func index(_ recordings: Interaction...) -> ReplayIndex {
        ReplayIndex(cassette: "dev", interactions: recordings)
    }

    @Test func keysOfPlainTargetsAndHeadersAreASCII() {
        let conditional = Recordings.make(.get, "/b", requestHeaders: [.ifNoneMatch: #""v1""#])
        let escapedASCII = Recordings.make(.get, "/c%41?q=%7e")
        #expect(index(Recordings.make(.get, "/a?x=1"), conditional, escapedASCII).loadedKeysAreASCII)
        #expect(index().loadedKeysAreASCII, "an empty cassette")
    }

    @Test(arguments: ["/caf%E9", "/caf%c3%a9", "/caf%C3%A9", "/café"])
    func aTargetWithAByteAboveASCIIIsNot(target: String) {
        #expect(!index(Recordings.make(.get, "/a"), Recordings.make(.get, target)).loadedKeysAreASCII, "\(target)")
    }

    @Test func aKeyedHeaderValueWithALatin1ByteIsNot() throws {
        var headers = HTTPFields()
        headers.append(HTTPField(name: .ifNoneMatch, value: Array("caf".utf8) + [0xE9]))
        let recording = Recordings.make(.get, "/a", requestHeaders: headers)
        #expect(recording.key.contains("%E9"), "\(recording.key)")
        #expect(!index(Recordings.make(.get, "/b"), recording).loadedKeysAreASCII)
    }
}
