#if canImport(CCurl)
import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import CassetteTools
@testable import WellPlateCore
@testable import WellPlateNetworking

/// A gzip response recorded live (libcurl decodes it and drops `Content-Encoding`) exports to HAR
/// with its headers in the order the server sent them, streamed or whole.
@Suite("HAR export of live recordings: header order")
struct HARLiveHeaderOrderTests {
    @Test func contentEncodingStaysWhereTheServerSentIt() async throws {
        let directory = try TemporaryDirectory(prefix: "har-order")
        let path = directory.path()
        try await PythonUpstream.with(in: directory.url.path) { base in
            try await withRecordingTransport(path: path, mode: .all) { transport in
                let response = try await transport.send(TransportRequest(method: .get, url: base.appendingPathComponent("api/gzip")))
                #expect(String(decoding: response.body, as: UTF8.self) == #"{"compressed": true}"#)
            }
        }
        let recording = try #require(try await storedInteractions(path).first)
        #expect(recording.contentEncoding == "gzip")
        // Python's server sends Server and Date first; Content-Encoding followed Content-Type.
        let contentType = try #require(recording.responseHeaders.firstIndex { $0.name == .contentType })
        #expect(recording.contentEncodingPosition == contentType + 1)
        let names = HARExporter(creatorVersion: "test").entry(recording).response.headers.map(\.name)
        let expected = ["Content-Type", "Content-Encoding", "Content-Length", "X-After", "Cache-Control"]
        #expect(names.filter(expected.contains) == expected, "\(names)")
    }
}
#endif
