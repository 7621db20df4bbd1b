import CassetteProxy
import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// The check reads the request lines the proxy prints (as `cassette` prints them on stdout).
@Suite("Proxy header names in any case")
final class ProxyHeaderNameCaseTests {
    let workspace: CLIWorkspace
    var store: String { workspace.storePath }

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// Header names are case-insensitive: a keyed header (`If-None-Match`) or a secret one
    /// (`Authorization`, whose value the target repeats) changes a replayed request's key in any
    /// spelling, while the usual request without either is keyed by its target alone.
    @Test func keyedAndSecretHeadersCountInAnyLetterCase() async throws {
        let token = "tK9-long-bearer-771"
        try await workspace.record([
            Recordings.make(.get, "/api/etag", status: 304, requestHeaders: [.ifNoneMatch: "\"v1\""], body: Data()),
            Recordings.make(.get, "/api/etag", body: Data(#"{"fresh":true}"#.utf8)),
            Recordings.make(.get, "/api/seen?seen=REDACTED", body: Data(#"{"seen":true}"#.utf8)),
        ])
        try await withInProcessReplayer(store: store) { replayer async throws in
            let connection = try await replayer.connect()
            func get(_ target: String, _ header: String? = nil) async throws -> RawHTTPResponse {
                try await connection.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + (header.map { "\($0)\r\n" } ?? "") + "\r\n")
                return try #require(try await connection.receiveResponses(1).first)
            }
            for spelling in ["If-None-Match", "if-none-match", "iF-nOnE-mAtCh"] {
                #expect(try await get("/api/etag", "\(spelling): \"v1\"").status == 304, "\(spelling)")
            }
            #expect(try await get("/api/etag").bodyText == #"{"fresh":true}"#)
            for spelling in ["Authorization", "authorization", "aUTHORIZATION"] {
                let seen = try await get("/api/seen?seen=\(token)", "\(spelling): Bearer \(token)")
                #expect(seen.header("X-Cassette") == "hit", "\(spelling): \(seen.bodyText)")
            }
            // Without the header the token is just part of the target: no recording has it.
            #expect(try await get("/api/seen?seen=\(token)").status == 404)
            await replayer.stop()
            // Logged raw only where no header made it a secret.
            let lines = replayer.standardOutput.split(separator: "\n").filter { $0.contains("/api/seen") }
            #expect(lines.count == 4)
            #expect(lines.filter { $0.contains(token) }.count == 1, "\(lines)")
        }
    }
}
