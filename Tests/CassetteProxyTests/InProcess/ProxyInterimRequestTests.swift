import CassetteProxy
import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `Expect: 100-continue` gets its `100 Continue` before the body is sent, any other expectation a
/// 417, and a request to switch
/// protocols gets a 501 naming the limitation (WebSocket) or is answered over HTTP/1.1 (h2c),
/// never a hang, in record and in replay.
@Suite("Proxy Expect and Upgrade")
final class ProxyInterimRequestTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("c.db") }
    let upload = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) })

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// `curl -v` uploading with `Expect: 100-continue`: its stderr (the status lines it saw) and body.
    private func curlUpload(_ url: URL) async throws -> (verbose: String, body: String) {
        let file = workspace.path("upload.bin")
        try upload.write(to: URL(fileURLWithPath: file))
        let result = try await ExternalTool.run(
            [
                "curl", "-sS", "-v", "-H", "Expect: 100-continue", "-H", "Content-Type: application/octet-stream", "--data-binary", "@" + file,
                url.absoluteString,
            ], cwd: workspace.directory)
        #expect(result.status == 0, "\(result.stderr)")
        return (result.stderr, result.stdout)
    }

    /// Sends only the head, waits for the interim response, then the body: a proxy that does not
    /// answer `Expect` leaves this waiting until the connection's receive timeout fails the test.
    private func rawUpload(port: Int) async throws -> (interim: String, final: String) {
        let connection = try await RawConnection.connect(port: port)
        try await connection.send(
            "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: \(upload.count)\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n"
        )
        let interim = try await connection.receive { $0.text.contains("\r\n\r\n") }
        try await connection.send(Array(upload))
        let final = try await connection.receiveUntilClosed()
        return (interim.text, final.text)
    }

    /// `GET /items?page=1` with `headers` (CRLF-terminated lines) on a connection of its own;
    /// everything the proxy sends until it closes.
    private func rawGet(port: Int, headers: String) async throws -> String {
        let connection = try await RawConnection.connect(port: port)
        try await connection.send("GET /items?page=1 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(headers)\r\n")
        return try await connection.receiveUntilClosed().text
    }

    private func webSocketHandshake(port: Int) async throws -> String {
        try await rawGet(
            port: port, headers: "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n")
    }

    @Test func anUploadExpecting100ContinueGetsItInRecordAndReplay() async throws {
        try await LinkingUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessRecorder(upstream: base, store: store) { recorder in
                let (verbose, body) = try await curlUpload(recorder.url("/upload"))
                #expect(verbose.contains("< HTTP/1.1 100 Continue"), "\(verbose)")
                #expect(verbose.contains("< HTTP/1.1 200 OK"))
                #expect(body.contains("\"bytes\": 5000"), "\(body)")
            }
        }
        try await withInProcessReplayer(store: store) { replayer in
            let (verbose, body) = try await curlUpload(replayer.url("/upload"))
            #expect(verbose.contains("< HTTP/1.1 100 Continue"), "\(verbose)")
            #expect(verbose.contains("< X-Cassette: hit"), "\(verbose)")
            #expect(body.contains("\"bytes\": 5000"))
            let raw = try await rawUpload(port: replayer.port)
            #expect(raw.interim.hasPrefix("HTTP/1.1 100 Continue\r\n"), "\(raw.interim)")
            #expect(raw.final.contains("HTTP/1.1 200 OK") && raw.final.contains("X-Cassette: hit"), "\(raw.final)")
        }
    }

    @Test func anUpstreamThatRefusesTheWebSocketUpgradeIsRecordedAndReplayedAsAnOrdinaryHTTPAnswer() async throws {
        try await LinkingUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessRecorder(upstream: base, store: store) { recorder in
                // The upstream is a plain HTTP server: it answers the handshake with its page.
                let answer = try await webSocketHandshake(port: recorder.port)
                #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(answer)")
                #expect(answer.contains(#""page": 1"#), "\(answer)")
                #expect(answer.lowercased().contains("connection: close"))
                // The proxy still records ordinary requests.
                #expect(try await recorder.get("/items?page=2").statusCode == 200)
            }
        }
        try await withInProcessReplayer(store: store) { replayer in
            let answer = try await webSocketHandshake(port: replayer.port)
            #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(answer)")
            #expect(answer.contains("X-Cassette: hit"), "\(answer)")
            #expect(answer.lowercased().contains("connection: close"))
        }
    }

    private func unknownExpectation(port: Int) async throws -> String {
        try await rawGet(port: port, headers: "Expect: x-cassette-test\r\n")
    }

    @Test func anExpectationOtherThan100ContinueGets417AndIsNotForwardedOrRecorded() async throws {
        try await LinkingUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessRecorder(upstream: base, store: store) { recorder in
                let answer = try await unknownExpectation(port: recorder.port)
                #expect(answer.hasPrefix("HTTP/1.1 417 Expectation Failed\r\n"), "\(answer)")
                #expect(answer.contains(#""error":"expectation_failed""#), "\(answer)")
                #expect(answer.contains(#"not \"x-cassette-test\""#), "\(answer)")
                #expect(try await recorder.get("/items?page=2").statusCode == 200)
            }
        }
        #expect(try await StoreFiles.interactions(at: store).map(\.url).allSatisfy { $0.hasSuffix("page=2") })
        try await withInProcessReplayer(store: store) { replayer in
            let answer = try await unknownExpectation(port: replayer.port)
            #expect(answer.hasPrefix("HTTP/1.1 417 Expectation Failed\r\n"), "\(answer)")
            #expect(answer.lowercased().contains("connection: close"))
        }
    }

    @Test func anH2CUpgradeIsAnsweredOverHTTP1() async throws {
        try await LinkingUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessRecorder(upstream: base, store: store) { recorder in
                let result = try await ExternalTool.run(
                    ["curl", "-sS", "-v", "--http2", recorder.url("/items?page=2").absoluteString], cwd: workspace.directory)
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stderr.contains("Upgrade: h2c"), "\(result.stderr)")
                #expect(result.stderr.contains("< HTTP/1.1 200 OK"), "\(result.stderr)")
                #expect(result.stdout.contains("\"page\": 2"))
            }
        }
    }
}
