import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import CassetteTools
@testable import WellPlateCore
@testable import WellPlateNetworking

/// HAR files in and out of the store: bodies, headers and sequences survive, secrets do not.
@Suite("HAR import and export")
final class HARImportExportTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "har")
    }

    /// Every byte value, so a base64 slip or a text decoding shows.
    static let binaryBody = Data((0..<600).map { UInt8(truncatingIfNeeded: $0 * 7) })

    static func entry(
        _ method: String = "GET", _ url: String, status: Int = 200,
        requestHeaders: [(String, String)] = [("Accept", "application/json")],
        postData: HARPostData? = nil,
        responseHeaders: [(String, String)], text: String?, encoding: String? = nil, size: Int? = nil,
        started: String = "2025-06-15T15:06:40.123Z", time: Double = 12.5
    ) -> HAREntry {
        HAREntry(
            startedDateTime: started, time: time,
            request: HARRequest(
                method: method, url: url, httpVersion: "HTTP/1.1", cookies: [], headers: requestHeaders.map(HARNameValue.init), queryString: [],
                postData: postData, headersSize: -1, bodySize: 0),
            response: HARResponse(
                status: status, statusText: "", httpVersion: "HTTP/1.1", cookies: [], headers: responseHeaders.map(HARNameValue.init),
                content: HARContent(size: size ?? text.map { $0.utf8.count } ?? 0, compression: nil, mimeType: "", text: text, encoding: encoding),
                redirectURL: "", headersSize: -1, bodySize: -1),
            timings: HARTimings(send: 0, wait: time, receive: 0)
        )
    }

    static func archive(_ entries: [HAREntry]) -> HARArchive {
        HARArchive(log: HARLog(creator: HARCreator(name: "test", version: "1"), entries: entries))
    }

    func importIntoStore(_ archive: HARArchive, mode: ImportMode = .missing) async throws -> (HARImporter.Result, [Interaction]) {
        let result = HARImporter(cassette: "dev").convert(archive)
        let store = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        try await store.importInteractions(result.interactions, mode: mode)
        let stored = try await store.interactions(cassette: "dev")
        try await store.close()
        return (result, stored)
    }

    @Test func statusHeadersAndBodiesSurviveHARToStoreToHARByteForByte() async throws {
        let json = #"{"id":7,"name":"Ada \u00e9"}"#
        let original = Self.archive([
            Self.entry(
                "GET", "http://api.test/api/users/7",
                responseHeaders: [
                    ("Content-Type", "application/json"), ("X-Trace", "t-1"), ("Content-Length", "\(json.utf8.count)"), ("Cache-Control", "no-store"),
                ], text: json),
            Self.entry(
                "GET", "http://api.test/api/binary?size=600", responseHeaders: [("content-type", "application/octet-stream"), ("content-length", "600")],
                text: Self.binaryBody.base64EncodedString(), encoding: "base64"),
            Self.entry(
                "POST", "http://api.test/api/users", status: 201, requestHeaders: [("Content-Type", "application/json")],
                postData: HARPostData(mimeType: "application/json", text: #"{"name":"Grace"}"#, params: nil, encoding: nil),
                responseHeaders: [("Location", "/api/users/8"), ("Content-Length", "2")], text: "{}"),
        ])
        let (result, stored) = try await importIntoStore(original)
        #expect(result.skipped.isEmpty && result.warnings.isEmpty)
        #expect(stored.count == 3)
        let exported = HARExporter(creatorVersion: "test").archive(stored)
        // Through JSON text, as a file would go.
        let reread = try HARArchive.decode(try exported.encoded())
        #expect(reread.log.version == "1.2")
        for (before, after) in zip(original.log.entries, reread.log.entries) {
            #expect(after.request.method == before.request.method)
            #expect(after.request.url == before.request.url)
            #expect(after.request.headers == before.request.headers)
            #expect(after.request.postData?.text == before.request.postData?.text)
            #expect(after.response.status == before.response.status)
            #expect(after.response.headers == before.response.headers)
            #expect(Self.bytes(after.response.content) == Self.bytes(before.response.content))
            #expect(after.startedDateTime == before.startedDateTime)
            #expect(after.time == before.time)
        }
        #expect(reread.log.entries[1].response.content.encoding == "base64")
        #expect(Self.bytes(reread.log.entries[1].response.content) == Self.binaryBody)
        #expect(reread.log.entries[0].response.content.encoding == nil)
    }

    static func bytes(_ content: HARContent) -> Data? {
        guard let text = content.text else { return nil }
        return content.encoding == "base64" ? Data(base64Encoded: text) : Data(text.utf8)
    }

    @Test func identicalRequestsBecomeASequenceInFileOrder() async throws {
        let entries = ["first", "second", "third"].map { word in
            Self.entry("GET", "http://api.test/api/flaky", responseHeaders: [("Content-Type", "text/plain")], text: word)
        }
        let (_, stored) = try await importIntoStore(Self.archive(entries))
        #expect(stored.map(\.sequence) == [0, 1, 2])
        #expect(stored.map { String(decoding: $0.responseBody, as: UTF8.self) } == ["first", "second", "third"])
        #expect(Set(stored.map(\.key)) == ["GET /api/flaky"])
    }

    @Test func missingModeKeepsKnownKeysAndAllModeReplacesThem() async throws {
        _ = try await importIntoStore(Self.archive([Self.entry("GET", "http://api.test/a", responseHeaders: [], text: "old")]))
        let newer = Self.archive([
            Self.entry("GET", "http://api.test/a", responseHeaders: [], text: "new"),
            Self.entry("GET", "http://api.test/b", responseHeaders: [], text: "b"),
        ])
        let (_, kept) = try await importIntoStore(newer, mode: .missing)
        #expect(kept.map { String(decoding: $0.responseBody, as: UTF8.self) } == ["old", "b"])
        let (_, replaced) = try await importIntoStore(newer, mode: .all)
        #expect(replaced.map { String(decoding: $0.responseBody, as: UTF8.self) } == ["new", "b"])
        #expect(replaced.map(\.sequence) == [0, 0])
    }

    @Test func entriesWithoutABodyAreImportedWithAWarningAndFailedOnesSkipped() {
        let archive = Self.archive([
            Self.entry("GET", "http://api.test/logo.png", responseHeaders: [("Content-Type", "image/png")], text: nil, size: 4096),
            Self.entry("GET", "http://api.test/gone", status: 0, responseHeaders: [], text: nil),
            Self.entry("CONNECT", "http://api.test:443", responseHeaders: [], text: ""),
            Self.entry("GET", "ws://api.test/socket", responseHeaders: [], text: ""),
            Self.entry("GET", "http://api.test/bad", responseHeaders: [], text: "%%%", encoding: "base64"),
        ])
        let result = HARImporter(cassette: "dev").convert(archive)
        #expect(result.interactions.map(\.url) == ["http://api.test/logo.png"])
        #expect(result.interactions.first?.responseBody.isEmpty == true)
        #expect(
            result.warnings.map(\.description) == [
                "entry 1 (GET http://api.test/logo.png): the HAR holds no response body (4096 bytes were sent); imported with an empty body"
            ])
        #expect(result.skipped.map(\.entry) == [2, 3, 4, 5])
        #expect(result.skipped[0].reason.contains("status 0"))
        #expect(result.skipped[1].reason.contains("CONNECT"))
        #expect(result.skipped[2].reason == "not an http(s) URL")
        #expect(result.skipped[3].reason.contains("base64"))
    }

    @Test func compressedResponsesAreStoredDecodedWithTheirEncodingRemembered() async throws {
        let body = #"[{"id":1}]"#
        let entry = Self.entry(
            "GET", "http://api.test/api/users",
            responseHeaders: [
                ("Content-Type", "application/json"), ("Content-Encoding", "gzip"), ("Transfer-Encoding", "chunked"), ("Vary", "Accept-Encoding"),
            ], text: body)
        let (_, stored) = try await importIntoStore(Self.archive([entry]))
        let recording = try #require(stored.first)
        #expect(recording.contentEncoding == "gzip")
        #expect(recording.responseBody == Data(body.utf8))
        #expect(recording.responseHeaders.map(\.name.rawName) == ["Content-Type", "Vary", "Content-Length"])
        #expect(recording.responseHeaders[.contentLength] == String(body.utf8.count))
        let exported = HARExporter(creatorVersion: "test").entry(recording)
        #expect(exported.response.headers.contains(HARNameValue(name: "Content-Encoding", value: "gzip")))
        #expect(exported.response.content.text == body)
    }

    @Test func anExportKeepsTheResponseHeadersInTheOrderRecorded() async throws {
        let body = #"{"id":1}"#
        let order = [
            ("Date", "Mon, 01 Jun 2026 10:00:00 GMT"), ("Content-Encoding", "gzip"), ("Content-Type", "application/json"),
            ("Transfer-Encoding", "chunked"), ("X-Trace", "t-9"), ("Content-Length", "\(body.utf8.count)"), ("Cache-Control", "no-store"),
        ]
        let (_, stored) = try await importIntoStore(Self.archive([Self.entry("GET", "http://api.test/api/meals/1", responseHeaders: order, text: body)]))
        let recording = try #require(stored.first)
        #expect(recording.contentEncodingPosition == 1)
        let exported = HARExporter(creatorVersion: "test").entry(recording)
        #expect(exported.response.headers.map(\.name) == ["Date", "Content-Encoding", "Content-Type", "X-Trace", "Content-Length", "Cache-Control"])
    }

    @Test func anEncodingLastOrUnplacedIsExportedLast() async throws {
        let body = "{}"
        let last = [("Content-Type", "application/json"), ("Content-Encoding", "br")]
        let (_, stored) = try await importIntoStore(Self.archive([Self.entry("GET", "http://api.test/api/a", responseHeaders: last, text: body)]))
        var recording = try #require(stored.first)
        let names = ["Content-Type", "Content-Length", "Content-Encoding"]
        #expect(HARExporter(creatorVersion: "test").entry(recording).response.headers.map(\.name) == ["Content-Type", "Content-Encoding", "Content-Length"])
        recording.contentEncodingPosition = nil
        #expect(HARExporter(creatorVersion: "test").entry(recording).response.headers.map(\.name) == names)
    }

    @Test func secretsAreRedactedBeforeAnythingIsStored() async throws {
        let token = "sk_live_abcdef1234567890"
        let entry = Self.entry(
            "GET", "http://api.test/api/me?api_key=\(token)",
            requestHeaders: [("Authorization", "Bearer \(token)"), ("Accept", "application/json")],
            responseHeaders: [("Content-Type", "application/json")],
            text: #"{"echo":"Bearer \#(token)","password":"hunter22"}"#
        )
        let (_, stored) = try await importIntoStore(Self.archive([entry]))
        let recording = try #require(stored.first)
        let everything = recording.url + HeaderLines.encode(recording.requestHeaders) + String(decoding: recording.responseBody, as: UTF8.self)
        #expect(!everything.contains(token))
        #expect(!everything.contains("hunter22"))
        #expect(recording.requestHeaders[.authorization] == "REDACTED")
        #expect(recording.key == "GET /api/me?api_key=REDACTED")
    }

    @Test func textBodiesBecomeBytesThroughTheCharsetTheWriterDecodedThemWith() {
        let bytes = Data((0..<256).map(UInt8.init))
        // mitmproxy decodes bytes it does not find binary enough as ISO 8859-1.
        let latin1 = String(decoding: bytes.map { UInt16($0) }, as: UTF16.self)
        #expect(HARText.bytes(of: latin1, contentType: "application/octet-stream", writtenByMitmproxy: true) == bytes)
        #expect(HARText.bytes(of: latin1, contentType: "application/octet-stream", writtenByMitmproxy: false) == bytes)
        #expect(HARText.bytes(of: "café", contentType: "text/plain; charset=utf-8", writtenByMitmproxy: true) == Data("café".utf8))
        #expect(HARText.bytes(of: "café", contentType: "text/plain", writtenByMitmproxy: true) == Data([0x63, 0x61, 0x66, 0xE9]))
        #expect(HARText.bytes(of: "café", contentType: "text/plain", writtenByMitmproxy: false) == Data("café".utf8))
        #expect(HARText.bytes(of: #"{"a":"é"}"#, contentType: "application/json", writtenByMitmproxy: true) == Data(#"{"a":"é"}"#.utf8))
        // Export: non-ASCII text goes as text only where the type says UTF-8.
        #expect(HARExporter.text(of: Data("café".utf8), contentType: "text/plain").encoding == "base64")
        #expect(HARExporter.text(of: Data("café".utf8), contentType: "text/plain; charset=UTF-8").encoding == nil)
        #expect(HARExporter.text(of: Data("plain".utf8), contentType: nil) == ("plain", nil))
    }

    @Test func startedDateTimesOfEveryCommonShapeAreRead() {
        let expected = Date(timeIntervalSince1970: 1_750_000_000.123)
        for text in ["2025-06-15T15:06:40.123Z", "2025-06-15T15:06:40.123456+00:00", "2025-06-15T17:06:40.123+02:00"] {
            let date = HARImporter.date(text)
            #expect(date.map { abs($0.timeIntervalSince(expected)) < 0.001 } == true, "\(text)")
        }
        #expect(HARImporter.date("2025-06-15T15:06:40Z") == Date(timeIntervalSince1970: 1_750_000_000))
        #expect(HARImporter.date("yesterday") == nil)
    }
}
