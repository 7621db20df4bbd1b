import CassetteProxy
import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// An HTTPS upstream that offers HTTP/2 (nginx, with certificates made by the test) is used over
/// HTTP/2, and what is stored and replayed does not depend on the protocol: the same static file
/// recorded over HTTP/2 and over HTTP/1.1 gives the same status, header names (HTTP/2 sends them in
/// lower case) and values, and body, and replays to the same bytes (apart from `Date`).
@Suite("Proxy with an HTTP/2 upstream")
final class ProxyHTTP2UpstreamTests {
    let workspace: CLIWorkspace

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// The response headers without `Date`, which differs between two requests, as name and
    /// value bytes.
    private func comparable(_ fields: HTTPFields) -> [String] {
        fields.filter { $0.name.canonicalName != "date" }.map { field in
            field.name.rawName + ": " + field.withUnsafeBytesOfValue { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// The raw replayed answer to `GET /data.json`, without its `Date` line.
    private func replayedBytes(store: String) async throws -> String {
        try await withInProcessReplayer(store: store) { replayer in
            let connection = try await replayer.connect()
            try await connection.send("GET /data.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let text = try await connection.receiveUntilClosed().text
            return text.split(separator: "\r\n", omittingEmptySubsequences: false).filter { !$0.lowercased().hasPrefix("date:") }.joined(separator: "\r\n")
        }
    }

    @Test func anHTTP2RecordingEqualsAnHTTP1RecordingAndReplaysTheSame() async throws {
        let certificates = try await TestCertificates.make(in: workspace.directory.path)
        let root = workspace.path("www")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try Data(#"{"name":"static","items":[1,2,3]}"#.utf8).write(to: URL(fileURLWithPath: root + "/data.json"))
        let h2Store = workspace.path("h2.db")
        let h1Store = workspace.path("h1.db")

        try await NginxUpstream.with(root: root, certificates: certificates, in: workspace.directory.path) { nginx in
            for (upstream, store) in [(nginx.http2, h2Store), (nginx.http1, h1Store)] {
                try await withInProcessRecorder(upstream: upstream, store: store, arguments: ["--cacert", certificates.caCertificate]) { recorder in
                    let response = try await recorder.get("/data.json")
                    #expect(response.statusCode == 200, "\(response.bodyText)")
                    #expect(response.cassetteSource == "recorded")
                }
            }
            // libcurl negotiated HTTP/2 where it was offered.
            let log = try nginx.accessLogLines()
            #expect(log.contains("\(nginx.http2.port!) HTTP/2.0 /data.json"), "\(log)")
            #expect(log.contains("\(nginx.http1.port!) HTTP/1.1 /data.json"), "\(log)")
        }

        let overHTTP2 = try #require(try await StoreFiles.interactions(at: h2Store).first)
        let overHTTP1 = try #require(try await StoreFiles.interactions(at: h1Store).first)
        #expect(overHTTP2.statusCode == overHTTP1.statusCode)
        #expect(overHTTP2.responseBody == overHTTP1.responseBody)
        #expect(comparable(overHTTP2.responseHeaders) == comparable(overHTTP1.responseHeaders))
        #expect(overHTTP2.responseHeaders.contains { $0.name.rawName == "Content-Type" }, "\(overHTTP2.responseHeaders)")
        #expect(overHTTP2.responseHeaders.contains { $0.name.rawName == "ETag" }, "\(overHTTP2.responseHeaders)")

        let replayedHTTP2 = try await replayedBytes(store: h2Store)
        let replayedHTTP1 = try await replayedBytes(store: h1Store)
        #expect(replayedHTTP2.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(replayedHTTP2)")
        #expect(replayedHTTP2 == replayedHTTP1)
    }
}
