import CassetteProxy
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// Plain listeners speak HTTP/2 with prior knowledge beside HTTP/1.1 on the same port: curl's
/// `--http2-prior-knowledge` requests are keyed, recorded, replayed and counted as HTTP/1.1 ones
/// (one recording serves both), streams run concurrently on one connection, and a flood of
/// frames gets a GOAWAY while other connections go on.
@Suite("Proxy listeners over HTTP/2")
final class ProxyHTTP2ListenerTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("c.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// `curl -sS -v` with `arguments`: its verbose stderr (status lines and headers as seen) and body.
    private func curl(_ arguments: [String]) async throws -> (verbose: String, body: String) {
        let result = try await ExternalTool.run(["curl", "-sS", "-v"] + arguments, cwd: workspace.directory)
        #expect(result.status == 0, "\(result.stderr)")
        return (result.stderr, result.stdout)
    }

    @Test func aRequestRecordedOverHTTP2ReplaysOverHTTP1AndTheOtherWayRound() async throws {
        try await LinkingUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessRecorder(upstream: base, store: store) { recorder in
                let overHTTP2 = try await curl(["--http2-prior-knowledge", recorder.url("/items?page=2").absoluteString])
                #expect(overHTTP2.verbose.contains("< HTTP/2 200"), "\(overHTTP2.verbose)")
                #expect(overHTTP2.verbose.contains("< x-cassette: recorded"), "\(overHTTP2.verbose)")
                #expect(overHTTP2.body.contains("\"page\": 2"), "\(overHTTP2.body)")
                let overHTTP1 = try await curl(["--http1.1", recorder.url("/items?page=3").absoluteString])
                #expect(overHTTP1.verbose.contains("< HTTP/1.1 200 OK"), "\(overHTTP1.verbose)")
                #expect(overHTTP1.body.contains("\"page\": 3"))
                _ = try await curl(["--http2-prior-knowledge", recorder.url("/redirect/0").absoluteString])
                try await recorder.waitForLogLine(containing: "/items?page=3")
                #expect(recorder.outputLines.contains { $0.contains("GET /items?page=2") && $0.contains("200") }, "\(recorder.outputLines)")
            }
        }
        try await withInProcessReplayer(store: store) { replayer in
            let overHTTP1 = try await curl(["--http1.1", replayer.url("/items?page=2").absoluteString])
            #expect(overHTTP1.verbose.contains("< HTTP/1.1 200 OK"), "\(overHTTP1.verbose)")
            #expect(overHTTP1.verbose.contains("< X-Cassette: hit"), "\(overHTTP1.verbose)")
            #expect(overHTTP1.body.contains("\"page\": 2"))
            let overHTTP2 = try await curl(["--http2-prior-knowledge", replayer.url("/items?page=3").absoluteString])
            #expect(overHTTP2.verbose.contains("< HTTP/2 200"), "\(overHTTP2.verbose)")
            #expect(overHTTP2.verbose.contains("< x-cassette: hit"), "\(overHTTP2.verbose)")
            #expect(overHTTP2.body.contains("\"page\": 3"))
            // No connection-specific header reaches an HTTP/2 client (RFC 9113 §8.2.2).
            #expect(!overHTTP2.verbose.lowercased().contains("< connection:"), "\(overHTTP2.verbose)")
            #expect(!overHTTP2.verbose.lowercased().contains("< transfer-encoding:"), "\(overHTTP2.verbose)")
            // A prepared reply (no upstream URLs in it) goes out as HEADERS and one DATA frame that
            // ends the stream, with the headers and length it announces.
            let prepared = try await curl(["--http2-prior-knowledge", replayer.url("/redirect/0").absoluteString])
            #expect(prepared.verbose.contains("< HTTP/2 200"), "\(prepared.verbose)")
            #expect(prepared.verbose.contains("< x-cassette: hit"), "\(prepared.verbose)")
            #expect(prepared.verbose.contains("< content-type: application/json"), "\(prepared.verbose)")
            #expect(prepared.body == "{\"done\": true}", "\(prepared.body)")
            #expect(prepared.verbose.contains("< content-length: \(prepared.body.utf8.count)"), "\(prepared.verbose)")
            let miss = try await curl(["--http2-prior-knowledge", replayer.url("/items?page=1").absoluteString])
            #expect(miss.verbose.contains("< HTTP/2 404"), "\(miss.verbose)")
            let stopped = await replayer.stop()
            // Counted as HTTP/1.1 answers are: three hits and one miss.
            let summary = try #require(stopped.summary.first)
            #expect(summary.contains("replayed 3") && summary.contains("missed 1"), "\(summary)")
        }
    }

    /// Plain replays over HTTP/2 are answered at the connection (`HTTP2PlainReplies`); with a
    /// latency to replay, the pick made there is answered by its stream. Either way a request is
    /// picked once: two recordings of one key (a 503, then a 200) replay in order over one
    /// connection, then the last again, and a miss is answered as over HTTP/1.1 and counted once.
    /// A request picked twice would skip the 503.
    @Test(arguments: [[], ["--latency", "1"]])
    func aSequenceReplaysInOrderOverOneHTTP2ConnectionAndAMissCountsOnce(latency: [String]) async throws {
        let target = "/api/flaky?key=h2&failures=1"
        try await withSampleAPI { api in
            try await withInProcessRecorder(upstream: api, store: store) { recorder in
                for _ in 0..<2 { _ = try await recorder.get(target) }
            }
        }
        // h2load, as above (curl cannot reuse a prior-knowledge connection): one connection, one
        // stream at a time, the URLs in their order.
        let ensured = try await ExternalTool.run(
            ["bash", ExternalTool.packageRoot.appendingPathComponent("scripts/ensure-deps.sh").path, "h2load"], cwd: workspace.directory)
        try #require(ensured.status == 0, "\(ensured.stderr)")
        try await withInProcessReplayer(store: store, arguments: latency) { replayer in
            let hit = replayer.url(target).absoluteString
            let urls = [hit, hit, hit, replayer.url("/api/nowhere").absoluteString]
            let result = try await ExternalTool.run(["h2load", "-n", "4", "-c", "1", "-m", "1"] + urls, cwd: workspace.directory)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("Application protocol: h2c"), "\(result.stdout)")
            #expect(result.stdout.contains("status codes: 2 2xx, 0 3xx, 1 4xx, 1 5xx"), "\(result.stdout)")
            let stopped = await replayer.stop()
            let summary = try #require(stopped.summary.first)
            #expect(summary.contains("replayed 3") && summary.contains("missed 1"), "\(summary)")
            // Logged in the order answered.
            let logged = replayer.outputLines.filter { $0.contains("GET /api/flaky") }.map { $0.contains(" 503 ") ? "503" : $0.contains(" 200 ") ? "200" : $0 }
            #expect(logged == ["503", "200", "200"], "\(replayer.outputLines)")
        }
    }

    @Test func aSessionJournalsHTTP2RequestsOnItsPortAndThroughTheMainPort() async throws {
        try await LinkingUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessRecorder(upstream: base, store: store) { recorder in
                _ = try await recorder.get("/items?page=2")
            }
        }
        try await withInProcessReplayer(store: store) { replayer in
            let session = try await replayer.openSession("dev")
            let own = try await curl(["--http2-prior-knowledge", session.baseURL.absoluteString + "/items?page=2"])
            #expect(own.verbose.contains("< HTTP/2 200"), "\(own.verbose)")
            let routed = try await curl([
                "--http2-prior-knowledge", "-H", "X-Cassette-Session: \(session.id)", replayer.url("/items?page=3").absoluteString,
            ])
            #expect(routed.verbose.contains("< HTTP/2 404"), "\(routed.verbose)")
            let requests = try await session.requests()
            #expect(requests.map { $0["path"] as? String } == ["/items", "/items"], "\(requests)")
            #expect(requests.map { $0["source"] as? String } == ["hit", "miss"], "\(requests)")
            #expect(requests.map { $0["status"] as? Int } == [200, 404], "\(requests)")
        }
    }

    @Test func streamsOnOneConnectionAreAnsweredConcurrently() async throws {
        try await LinkingUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessRecorder(upstream: base, store: store) { recorder in
                for page in 1...3 { _ = try await recorder.get("/items?page=\(page)") }
            }
        }
        // h2load (nghttp2's load client): curl 7.88 cannot reuse a prior-knowledge connection
        // (curl/curl#10634), h2load multiplexes by design.
        let ensured = try await ExternalTool.run(
            ["bash", ExternalTool.packageRoot.appendingPathComponent("scripts/ensure-deps.sh").path, "h2load"], cwd: workspace.directory)
        try #require(ensured.status == 0, "\(ensured.stderr)")
        try await withInProcessReplayer(store: store) { replayer in
            // 30 requests over one connection, up to 10 streams open at once, cycling the pages.
            let urls = (1...3).map { replayer.url("/items?page=\($0)").absoluteString }
            let result = try await ExternalTool.run(["h2load", "-n", "30", "-c", "1", "-m", "10"] + urls, cwd: workspace.directory)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("Application protocol: h2c"), "\(result.stdout)")
            #expect(result.stdout.contains("requests: 30 total, 30 started, 30 done, 30 succeeded, 0 failed"), "\(result.stdout)")
            #expect(result.stdout.contains("status codes: 30 2xx"), "\(result.stdout)")
            let stopped = await replayer.stop()
            let summary = try #require(stopped.summary.first)
            #expect(summary.contains("replayed 30"), "\(summary)")
        }
    }

    @Test(arguments: ["ping", "rapid reset"])
    func aFloodGetsAGoAwayAndOtherConnectionsGoOn(flood: String) async throws {
        try await LinkingUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessRecorder(upstream: base, store: store) { recorder in
                _ = try await recorder.get("/items?page=1")
            }
        }
        try await withInProcessReplayer(store: store) { replayer in
            let flooder = try await replayer.connect()
            var bytes = HTTP2Frames.preface + HTTP2Frames.frame(.settings)
            for index in 0..<400 {
                if flood == "ping" {
                    bytes += HTTP2Frames.ping(UInt8(index % 256))
                } else {
                    let stream = UInt32(2 * index + 1)
                    bytes += HTTP2Frames.request(stream: stream) + HTTP2Frames.cancel(stream: stream)
                }
            }
            try await flooder.send(bytes)
            let (received, _) = try await flooder.receiveToEnd()
            let goAway = HTTP2Frames.frames(in: received).first { $0.kind == HTTP2Frames.Kind.goAway.rawValue }
            #expect(goAway?.errorCode == HTTP2Frames.enhanceYourCalm, "\(HTTP2Frames.frames(in: received).map { "\($0.kind)/\($0.errorCode ?? 0)" })")

            // Another connection is served as before, over either protocol.
            let overHTTP2 = try await curl(["--http2-prior-knowledge", replayer.url("/items?page=1").absoluteString])
            #expect(overHTTP2.verbose.contains("< HTTP/2 200"), "\(overHTTP2.verbose)")
            let overHTTP1 = try await replayer.get("/items?page=1")
            #expect(overHTTP1.statusCode == 200)
            try await replayer.waitForLogLine(containing: "refused: too many")
        }
    }

    @Test func bytesThatAreNeitherProtocolGetA400WithAReasonInTheLog() async throws {
        try await LinkingUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessRecorder(upstream: base, store: store) { recorder in
                _ = try await recorder.get("/items?page=1")
            }
        }
        try await withInProcessReplayer(store: store) { replayer in
            // A preface with one byte wrong is no HTTP/2 and no valid HTTP/1.1 either.
            let garbage = try await replayer.connect()
            try await garbage.send("PRX * HTTP/2.0\r\n\r\nSM\r\n\r\n")
            let answer = String(decoding: try await garbage.receiveToEnd().bytes, as: UTF8.self)
            #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(answer)")
            try await replayer.waitForLogLine(containing: "speaks neither HTTP/1.1 nor HTTP/2")

            // A right preface followed by bytes that are no frame: a GOAWAY (PROTOCOL_ERROR or
            // FRAME_SIZE_ERROR) and the connection closed.
            let broken = try await replayer.connect()
            try await broken.send(HTTP2Frames.preface + Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            let frames = HTTP2Frames.frames(in: try await broken.receiveToEnd().bytes)
            #expect(frames.contains { $0.kind == HTTP2Frames.Kind.goAway.rawValue }, "\(frames.map { "\($0.kind)" })")

            let after = try await replayer.get("/items?page=1")
            #expect(after.statusCode == 200)
        }
    }
}
