import CassetteProxy
import Foundation
import TestSupport
import Testing
import WellPlateCore

/// A plain `http://` upstream is spoken to over HTTP/2 with prior knowledge (h2c) when the client
/// spoke HTTP/2 and the upstream speaks it (PyPI's hypercorn, which says which version each request
/// came in), over HTTP/1.1 when the client spoke HTTP/1.1; an upstream that speaks HTTP/1.1 only
/// (Python's http.server) still gets an HTTP/2 client's requests, over HTTP/1.1, and the log says
/// so once; and when such an origin turns into one that speaks h2c only (nghttpd on the same port),
/// the request that meets it is sent again at once with prior knowledge, and so are the next ones. curl is the client on
/// both sides of the proxy.
@Suite("Proxy with an h2c upstream")
final class ProxyH2CUpstreamTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("h2c.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// `curl -sS` with `arguments`; its body.
    private func curl(_ arguments: [String]) async throws -> String {
        let result = try await ExternalTool.run(["curl", "-sS"] + arguments, cwd: workspace.directory)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return result.stdout
    }

    /// The HTTP version the upstream reported in an answer's body.
    private func upstreamVersion(_ body: String) throws -> String? {
        try JSONValue(parsing: body)["httpVersion"]?.stringValue
    }

    @Test func eachClientsHTTPVersionReachesAnUpstreamThatSpeaksBoth() async throws {
        try await H2CUpstream.with { upstream, requests in
            try await withInProcessRecorder(upstream: upstream, store: store) { recorder in
                // HTTP/1.1 first, so that libcurl holds an HTTP/1.1 connection the HTTP/2 request must not take.
                #expect(try upstreamVersion(try await curl(["--http1.1", recorder.url("/first").absoluteString])) == "1.1")
                #expect(try upstreamVersion(try await curl(["--http2-prior-knowledge", recorder.url("/items").absoluteString])) == "2")
                let posted = try await curl(["--http2-prior-knowledge", "-d", #"{"sku":"b1"}"#, recorder.url("/orders").absoluteString])
                #expect(try upstreamVersion(posted) == "2", "\(posted)")
                // And an HTTP/1.1 client never rides the HTTP/2 connection now open.
                #expect(try upstreamVersion(try await curl(["--http1.1", recorder.url("/again").absoluteString])) == "1.1")
            }
            let seen = requests()
            #expect(seen == ["HTTP/1.1 GET /first", "HTTP/2 GET /items", "HTTP/2 POST /orders", "HTTP/1.1 GET /again"], "\(seen)")
        }
        // Replayed offline, to either kind of client, as recorded.
        try await withInProcessReplayer(store: store) { replayer in
            #expect(try upstreamVersion(try await curl(["--http1.1", replayer.url("/items").absoluteString])) == "2")
            let posted = try await curl(["--http2-prior-knowledge", "-d", #"{"sku":"b1"}"#, replayer.url("/orders").absoluteString])
            #expect(try JSONValue(parsing: posted)["bytes"] == .integer(12), "\(posted)")
        }
    }

    @Test func aFirstPOSTLearnsTheUpstreamFromOPTIONSStarBeforeItIsSent() async throws {
        try await H2CUpstream.with { upstream, requests in
            try await withInProcessRecorder(upstream: upstream, store: store) { recorder in
                let posted = try await curl(["--http2-prior-knowledge", "-d", "x=1", recorder.url("/orders").absoluteString])
                #expect(try upstreamVersion(posted) == "2", "\(posted)")
            }
            // The POST went once, after a request that has no effect had shown HTTP/2 works.
            #expect(requests() == ["HTTP/2 OPTIONS *", "HTTP/2 POST /orders"], "\(requests())")
        }
    }

    @Test func anUpstreamThatSpeaksOnlyHTTP1GetsAnHTTP2ClientsRequestsOverHTTP1() async throws {
        try await LinkingUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessRecorder(upstream: base, store: store) { recorder in
                let page = try await curl(["--http2-prior-knowledge", recorder.url("/items?page=2").absoluteString])
                #expect(page.contains("\"page\": 2"), "\(page)")
                let uploaded = try await curl(["--http2-prior-knowledge", "-d", "12345", recorder.url("/upload").absoluteString])
                #expect(uploaded.contains("5"), "\(uploaded)")
                let again = try await curl(["--http2-prior-knowledge", recorder.url("/items?page=3").absoluteString])
                #expect(again.contains("\"page\": 3"), "\(again)")
                let page1 = try await curl(["--http1.1", recorder.url("/items?page=1").absoluteString])
                #expect(page1.contains("\"page\": 1"), "\(page1)")
                try await recorder.waitForLogLine(containing: "/items?page=1")
                let notices = recorder.outputLines.filter { $0.contains("does not speak HTTP/2") }
                #expect(notices.count == 1, "\(recorder.outputLines)")
                #expect(notices.first?.contains(base.absoluteString.trimmingCharacters(in: ["/"])) == true, "\(notices)")
            }
        }
        try await withInProcessReplayer(store: store) { replayer in
            let page = try await curl(["--http2-prior-knowledge", replayer.url("/items?page=2").absoluteString])
            #expect(page.contains("\"page\": 2"), "\(page)")
        }
    }

    /// `curl -sS --http2-prior-knowledge URL`: the status and the body.
    private func http2Request(_ url: URL) async throws -> (status: Int, body: String) {
        let result = try await ExternalTool.run(
            ["curl", "-sS", "--http2-prior-knowledge", "-w", "\n%{http_code}", url.absoluteString], cwd: workspace.directory)
        #expect(result.status == 0, "\(url): \(result.stderr)")
        var lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let status = lines.popLast().flatMap { Int($0) } ?? 0
        return (status, lines.joined(separator: "\n"))
    }

    /// Python's http.server (HTTP/1.1 only) serving `directory` on a free port, for `body` with
    /// the port and the process (which `body` may stop early); always stopped.
    private func withHTTP1Server<Result>(directory: String, _ body: (_ port: Int, _ server: ChildProcess) async throws -> Result) async throws -> Result {
        let arguments = ["python3", "-u", "-m", "http.server", "--bind", "127.0.0.1", "--directory", directory, "0"]
        return try await withChildProcess("/usr/bin/env", arguments: arguments) { process in
            // "Serving HTTP on 127.0.0.1 port 45678 (http://127.0.0.1:45678/) ..."
            let line = try await process.firstLineOfOutput()
            guard let port = line.split(separator: " ").dropFirst(5).first.flatMap({ Int($0) }) else {
                throw ChildProcessError("http.server did not say its port: \(line)")
            }
            return try await body(port, process)
        }
    }

    @Test func anOriginKnownToSpeakOnlyHTTP1ThatTurnsH2COnlyIsAnsweredOverH2CAtOnce() async throws {
        let files = workspace.path("files")
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
        try Data(#"{"served": true}"#.utf8).write(to: URL(fileURLWithPath: files + "/data.json"))
        try await withHTTP1Server(directory: files) { port, http1Server in
            let upstream = URL(string: "http://127.0.0.1:\(port)")!
            try await withInProcessRecorder(upstream: upstream, store: store) { recorder in
                // Learned: HTTP/1.1 only (http.server answers the preface with a 505).
                let first = try await http2Request(recorder.url("/data.json"))
                #expect(first.status == 200 && first.body == #"{"served": true}"#, "\(first)")
                try await recorder.waitForLogLine(containing: "does not speak HTTP/2")

                // The same origin now speaks h2c only: its answer to HTTP/1.1 is an HTTP/2 frame.
                await http1Server.terminate()
                try await H2COnlyUpstream.with(directory: files, port: port) { _ in
                    // Its SETTINGS answer proves the request was not processed: sent again at once
                    // with prior knowledge, so the client gets nghttpd's answer, not a 502.
                    let met = try await http2Request(recorder.url("/data.json"))
                    #expect(met.status == 200 && met.body == #"{"served": true}"#, "\(met)")
                    let second = try await http2Request(recorder.url("/data.json"))
                    #expect(second.status == 200 && second.body == #"{"served": true}"#, "\(second)")
                    let third = try await http2Request(recorder.url("/data.json"))
                    #expect(third.status == 200, "\(third)")
                }
                let notices = recorder.outputLines.filter { $0.contains("does not speak HTTP/2") }
                #expect(notices.count == 1, "\(recorder.outputLines)")
            }
        }
    }
}
