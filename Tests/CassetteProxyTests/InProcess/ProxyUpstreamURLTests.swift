import CassetteProxy
import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

#if canImport(Glibc)
import Glibc
#endif

/// Absolute URLs that lead back to the upstream (a redirect's `Location`, `Link` pagination,
/// `Content-Location`, `Refresh`, and with `--rewrite-body-urls` JSON bodies) are served pointing
/// at the proxy, in record and in offline replay, while the store keeps what the upstream sent.
@Suite("Proxy upstream URL rewriting")
final class ProxyUpstreamURLTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("c.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// `curl -L` through `proxy`: every hop's URL (as `-w` prints the last one) and the body.
    private func curlFollowing(_ url: URL) async throws -> (effectiveURL: String, redirects: Int, body: String) {
        let result = try await ExternalTool.run(
            ["curl", "-sS", "-L", "--max-redirs", "5", "-w", "\n%{url_effective} %{num_redirects}", url.absoluteString], cwd: workspace.directory)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let last = try #require(lines.last).split(separator: " ")
        return (String(last[0]), Int(last[1]) ?? -1, lines.dropLast().joined(separator: "\n"))
    }

    private func links(_ response: TransportResponse) -> [String: String] {
        guard let value = response.headerFields[HTTPField.Name("Link")!] else { return [:] }
        var result: [String: String] = [:]
        for part in value.split(separator: ",") {
            guard let open = part.firstIndex(of: "<"), let close = part.firstIndex(of: ">"), let rel = part.range(of: "rel=\"") else { continue }
            let name = part[rel.upperBound...].prefix { $0 != "\"" }
            result[String(name)] = String(part[part.index(after: open)..<close])
        }
        return result
    }

    /// Follows `rel="next"` from `/items?page=1` on `proxy` (by the URLs the proxy serves) and
    /// returns the pages' numbers and every URL followed.
    private func paginate(_ proxy: URL) async throws -> (pages: [Int], followed: [String]) {
        var next: String? = proxy.appending(pathAndQuery: "/items?page=1").absoluteString
        var pages: [Int] = []
        var followed: [String] = []
        while let url = next, pages.count < 10 {
            followed.append(url)
            let response = try await ProxyClient.send(.get, try #require(URL(string: url)))
            #expect(response.statusCode == 200, "\(url): \(response.bodyText)")
            pages.append(try response.jsonObject()["page"] as? Int ?? -1)
            next = links(response)["next"]
        }
        return (pages, followed)
    }

    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(fd) }
        return try Ports.bindLoopback(fd)
    }

    @Test func aRedirectChainFollowedByCurlStaysOnTheProxyInRecordAndOfflineReplay() async throws {
        var upstreamLocation = ""
        try await LinkingUpstream.with(in: workspace.directory.path) { base in
            upstreamLocation = base.absoluteString + "/redirect/2"
            try await withInProcessRecorder(upstream: base, store: store) { recorder in
                let followed = try await curlFollowing(recorder.url("/redirect/3"))
                #expect(followed.effectiveURL == recorder.url("/redirect/0").absoluteString)
                #expect(followed.redirects == 3)
                #expect(followed.body.contains("\"done\": true"), "\(followed.body)")
            }
        }
        // The store keeps the upstream's Location byte for byte.
        let stored = try await StoreFiles.interactions(at: store)
        #expect(stored.count == 4)
        let first = try #require(stored.first { $0.url.hasSuffix("/redirect/3") })
        #expect(first.responseHeaders[.location] == upstreamLocation)

        // Upstream stopped: replay on a free port (rewritten per request) ...
        try await withInProcessReplayer(store: store) { replayer in
            let followed = try await curlFollowing(replayer.url("/redirect/3"))
            #expect(followed.effectiveURL == replayer.url("/redirect/0").absoluteString)
            #expect(followed.redirects == 3)
            #expect(followed.body.contains("\"done\": true"))
        }
        // ... and on a fixed one, whose answers are rewritten once at start-up; a client that
        // names the proxy differently (localhost) gets its own name back.
        let port = try Self.freePort()
        try await withInProcessProxy(["replay", "--port", String(port), "--db", store]) { replayer in
            let followed = try await curlFollowing(replayer.url("/redirect/3"))
            #expect(followed.effectiveURL == "http://127.0.0.1:\(port)/redirect/0")
            #expect(followed.redirects == 3)
            let viaLocalhost = try await ProxyClient.send(.get, URL(string: "http://localhost:\(port)/redirect/1")!)
            #expect(viaLocalhost.statusCode == 302)
            #expect(viaLocalhost.headerFields[.location] == "http://localhost:\(port)/redirect/0")
            #expect(viaLocalhost.cassetteSource == "hit")
        }
    }

    @Test func linkPaginationIsFollowedThroughTheProxyAndReplaysOffline() async throws {
        try await LinkingUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessRecorder(upstream: base, store: store) { recorder in
                let walk = try await paginate(recorder.url)
                #expect(walk.pages == [1, 2, 3])
                #expect(walk.followed.allSatisfy { $0.hasPrefix("http://127.0.0.1:\(recorder.port)/") }, "\(walk.followed)")
                let last = try await recorder.get("/items?page=3")
                #expect(links(last)["first"] == "http://127.0.0.1:\(recorder.port)/items?page=1")
            }
            let stored = try await StoreFiles.interactions(at: store)
            // Pages 1 to 3, and page 3 again (its second recording).
            #expect(stored.count == 4)
            #expect(stored.allSatisfy { ($0.responseHeaders[HTTPField.Name("Link")!] ?? "").contains(base.absoluteString + "/items?page=1") })
        }
        try await withInProcessReplayer(store: store) { replayer in
            let walk = try await paginate(replayer.url)
            #expect(walk.pages == [1, 2, 3])
            #expect(walk.followed.allSatisfy { $0.hasPrefix("http://127.0.0.1:\(replayer.port)/") }, "\(walk.followed)")
        }
    }

    @Test func contentLocationAndRefreshUnderAnUpstreamPathPrefixPointAtTheProxyRoot() async throws {
        try await LinkingUpstream.with(prefix: "/v1", in: workspace.directory.path) { base in
            #expect(base.path == "/v1")
            try await withInProcessRecorder(upstream: base, store: store) { recorder in
                let moved = try await recorder.get("/moved")
                #expect(moved.headerFields[.contentLocation] == "http://127.0.0.1:\(recorder.port)/items?page=1")
                #expect(moved.headerFields[HTTPField.Name("Refresh")!] == "0; url=http://127.0.0.1:\(recorder.port)/items?page=2")
                let followed = try await curlFollowing(recorder.url("/redirect/1"))
                #expect(followed.effectiveURL == recorder.url("/redirect/0").absoluteString)
                // A root-relative Location carries the prefix, which the proxy serves at its root.
                let relative = try await curlFollowing(recorder.url("/relative"))
                #expect(relative.effectiveURL == recorder.url("/redirect/0").absoluteString)
                #expect(relative.body.contains("done"), "\(relative.body)")
                // URLs that only look like the upstream's are served as sent.
                let lookalike = try await recorder.get("/lookalike")
                let sent = try #require(try lookalike.jsonObject()["lookalikes"] as? [String])
                let link = try #require(lookalike.headerFields[HTTPField.Name("Link")!])
                #expect(sent.count == 5 && sent.allSatisfy { link.contains("<\($0)>") }, "\(link)")
                #expect(link.hasSuffix("<http://127.0.0.1:\(recorder.port)/x>; rel=\"self\""), "\(link)")
            }
        }
        try await withInProcessReplayer(store: store) { replayer in
            let moved = try await replayer.get("/moved")
            #expect(moved.cassetteSource == "hit")
            #expect(moved.headerFields[.contentLocation] == "http://127.0.0.1:\(replayer.port)/items?page=1")
            #expect(moved.headerFields[HTTPField.Name("Refresh")!] == "0; url=http://127.0.0.1:\(replayer.port)/items?page=2")
            let relative = try await curlFollowing(replayer.url("/relative"))
            #expect(relative.effectiveURL == replayer.url("/redirect/0").absoluteString)
        }
    }

    @Test func noRewriteURLsServesTheUpstreamsURLsAsSent() async throws {
        try await LinkingUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessRecorder(upstream: base, store: store, arguments: ["--no-rewrite-urls"]) { recorder in
                let response = try await recorder.get("/redirect/1")
                #expect(response.headerFields[.location] == base.absoluteString + "/redirect/0")
            }
            try await withInProcessReplayer(store: store, arguments: ["--no-rewrite-urls"]) { replayer in
                let response = try await replayer.get("/redirect/1")
                #expect(response.cassetteSource == "hit")
                #expect(response.headerFields[.location] == base.absoluteString + "/redirect/0")
            }
            // The configuration file's key does the same.
            try workspace.write(#"{"rewriteURLs": false}"#, to: "cassette.json")
            try await withInProcessProxy(["replay", "--port", "0", "--db", store] + workspace.configArguments) { replayer in
                let response = try await replayer.get("/redirect/1")
                #expect(response.headerFields[.location] == base.absoluteString + "/redirect/0")
            }
        }
    }

    @Test func jsonBodiesAreRewrittenOnlyWithRewriteBodyURLs() async throws {
        var recordedBody = Data()
        try await LinkingUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessRecorder(upstream: base, store: store) { recorder in
                let plain = try await recorder.get("/links.json")
                recordedBody = plain.body
                #expect(plain.bodyText.contains(base.absoluteString + "/links.json"))
            }
            try await withInProcessRecorder(upstream: base, store: workspace.path("body.db"), arguments: ["--rewrite-body-urls"]) { recorder in
                let rewritten = try await recorder.get("/links.json")
                let proxy = "http://127.0.0.1:\(recorder.port)"
                #expect(rewritten.bodyText.contains("\"self\":\"\(proxy)/links.json\""), "\(rewritten.bodyText)")
                #expect(rewritten.headerFields[.contentLength] == String(rewritten.body.count))
            }
            // The store keeps the upstream's bytes either way.
            #expect(try await StoreFiles.interactions(at: workspace.path("body.db")).first?.responseBody == recordedBody)
        }
        try await withInProcessReplayer(store: store) { replayer in
            let plain = try await replayer.get("/links.json")
            #expect(plain.body == recordedBody)
        }
        let port = try Self.freePort()
        try await withInProcessProxy(["replay", "--port", String(port), "--db", store, "--rewrite-body-urls"]) { replayer in
            let proxy = "http://127.0.0.1:\(port)"
            let rewritten = try await replayer.get("/links.json")
            let object = try rewritten.jsonObject()
            #expect(object["self"] as? String == "\(proxy)/links.json")
            #expect(object["escaped"] as? String == "\(proxy)/items?page=2")
            #expect(object["elsewhere"] as? String == "https://example.org/x")
            #expect(rewritten.headerFields[.contentLength] == String(rewritten.body.count))
            let viaLocalhost = try await ProxyClient.send(.get, URL(string: "http://localhost:\(port)/links.json")!)
            #expect(try viaLocalhost.jsonObject()["self"] as? String == "http://localhost:\(port)/links.json")
        }
    }
    @Test func aStaleRecordingThatLeadsBackIsServedRewrittenWithItsWarning() async throws {
        let storePath = workspace.path("stale.db")
        try await workspace.record(
            [
                Recordings.make(.get, "/old", status: 302, responseHeaders: [.contentType: "application/json", .location: "http://127.0.0.1:8081/new"])
            ], into: "stale.db")
        try await withInProcessProxy(["replay", "--db", storePath, "--upstream", "http://127.0.0.1:8081", "--port", "0", "--max-age", "90"]) { replayer in
            let old = try await replayer.get("/old")
            #expect(old.statusCode == 302)
            #expect(old.headerFields[.location] == "http://127.0.0.1:\(replayer.port)/new")
            await replayer.stop()
            #expect(
                replayer.outputLines.filter { $0.hasPrefix("warning: GET /old served from a stale recording") }.count == 1, "\(replayer.standardOutput)"
            )
            #expect(replayer.summaryLine?.contains("stale 1") == true, "\(replayer.summaryLine ?? "")")
        }
    }
}
