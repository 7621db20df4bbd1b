import Foundation
import HTTPTypes
import Testing

@testable import CassetteTools
@testable import WellPlateCore

/// HAR's `httpVersion` comes from the version a recording was made over: HTTP/2 as DevTools
/// write it (`http/2.0`), unknown as `HTTP/1.1`; an import keeps what the file says.
@Suite("HAR httpVersion from the recorded HTTP version")
struct HARHTTPVersionTests {
    static func interaction(_ version: RecordedHTTPVersion?) -> Interaction {
        var interaction = Interaction(
            cassette: "dev", method: .get, url: "http://api.test/items", key: "GET /items", statusCode: 200,
            responseHeaders: [.contentType: "application/json"], responseBody: Data("{}".utf8))
        interaction.httpVersion = version
        return interaction
    }

    @Test(arguments: [
        (RecordedHTTPVersion?.some(.http2), "http/2.0"), (.some(.http1_1), "HTTP/1.1"), (.some(.http1_0), "HTTP/1.0"), (nil, "HTTP/1.1"),
    ])
    func theRequestAndResponseCarryTheRecordedVersion(version: RecordedHTTPVersion?, written: String) throws {
        let entry = HARExporter(creatorVersion: "test").entry(Self.interaction(version))
        #expect(entry.request.httpVersion == written)
        #expect(entry.response.httpVersion == written)
    }

    @Test(arguments: [
        ("http/2.0", RecordedHTTPVersion?.some(.http2)), ("HTTP/2.0", .some(.http2)), ("HTTP/2", .some(.http2)), ("h2", .some(.http2)),
        ("HTTP/1.1", .some(.http1_1)), ("http/1.1", .some(.http1_1)), ("h3", .some(.http3)), ("", nil), ("SPDY/3", nil),
    ])
    func anImportKeepsTheVersionDevToolsOrMitmproxyWrote(written: String, version: RecordedHTTPVersion?) throws {
        var entry = HARExporter(creatorVersion: "test").entry(Self.interaction(nil))
        entry.request.httpVersion = written
        entry.response.httpVersion = written
        let result = HARImporter(cassette: "dev").convert(HARArchive(log: HARLog(creator: HARCreator(name: "x", version: "1"), entries: [entry])))
        #expect(result.interactions.first?.httpVersion == version)
    }
}
