#if canImport(CCurl)
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// `TransportRequest.prefersHTTP2` against real servers: hypercorn (HTTP/1.1 and h2c with prior
/// knowledge on one port, answering with the version it saw), Python's http.server and the sample
/// API (HTTP/1.1 only).
@Suite("libcurl transport and h2c upstreams")
struct CurlTransportH2CTests {
    /// What a transport said through `Configuration.notice`.
    private final class Notices: Sendable {
        private let lines = Mutex<[String]>([])
        var said: [String] { lines.withLock { $0 } }
        func add(_ line: String) { lines.withLock { $0.append(line) } }
    }

    /// A transport whose notices are kept.
    private func transport() throws -> (CurlTransport, Notices) {
        let notices = Notices()
        var configuration = CurlTransport.Configuration()
        configuration.notice = { notices.add($0) }
        return (try CurlTransport(configuration: configuration), notices)
    }

    private func request(_ method: WellPlateCore.HTTPMethod, _ url: URL, body: Data? = nil, http2: Bool = true) -> TransportRequest {
        var request = TransportRequest(method: method, url: url, body: body)
        request.prefersHTTP2 = http2
        return request
    }

    private func version(_ response: TransportResponse) throws -> String? {
        try JSONValue(parsing: String(decoding: response.body, as: UTF8.self))["httpVersion"]?.stringValue
    }

    @Test func aRequestThatPrefersHTTP2GoesOverH2CAndOneThatDoesNotOverHTTP1() async throws {
        try await H2CUpstream.with { upstream, requests in
            let (transport, notices) = try transport()
            #expect(try version(try await transport.send(request(.get, upstream.appending(path: "a")))) == "2")
            #expect(try version(try await transport.send(request(.get, upstream.appending(path: "b"), http2: false))) == "1.1")
            #expect(try version(try await transport.send(request(.put, upstream.appending(path: "c"), body: Data("x".utf8)))) == "2")
            let streamed = try await transport.stream(request(.get, upstream.appending(path: "d")))
            #expect(streamed.head.statusCode == 200)
            #expect(requests() == ["HTTP/2 GET /a", "HTTP/1.1 GET /b", "HTTP/2 PUT /c", "HTTP/2 GET /d"], "\(requests())")
            #expect(notices.said.isEmpty)
        }
    }

    @Test func aPOSTToAnOriginNotYetKnownIsSentOnceAfterOPTIONSStar() async throws {
        try await H2CUpstream.with { upstream, requests in
            let (transport, _) = try transport()
            let response = try await transport.send(request(.post, upstream.appending(path: "orders"), body: Data("{}".utf8)))
            #expect(try version(response) == "2")
            _ = try await transport.send(request(.post, upstream.appending(path: "orders"), body: Data("{}".utf8)))
            #expect(requests() == ["HTTP/2 OPTIONS *", "HTTP/2 POST /orders", "HTTP/2 POST /orders"], "\(requests())")
        }
    }

    @Test func http1OnlyServersGetTheRequestOverHTTP1AndAreNamedOnce() async throws {
        let directory = try TemporaryDirectory(prefix: "h2c-fallback")
        try await LinkingUpstream.with(in: directory.url.path) { python in
            try await withSampleAPI { sample in
                let (transport, notices) = try transport()
                for _ in 0..<2 {
                    let page = try await transport.send(request(.get, python.appending(pathAndQuery: "/items?page=2")))
                    #expect(page.statusCode == 200)
                    let uploaded = try await transport.send(request(.post, python.appending(path: "upload"), body: Data("12345".utf8)))
                    #expect(uploaded.statusCode == 200)
                    let users = try await transport.send(request(.get, sample.appending(pathAndQuery: "/api/users")))
                    #expect(users.statusCode == 200)
                }
                let said = notices.said
                #expect(said.count == 2, "\(said)")
                #expect(said.allSatisfy { $0.contains("does not speak HTTP/2 with prior knowledge") }, "\(said)")
            }
        }
    }

    /// An origin learned as h2c is replaced on its port by an HTTP/1.1-only server (Python's
    /// http.server, whose log names every request line it read): a POST that fails on it is
    /// reported, never sent again over HTTP/1.1; a GET after it goes over HTTP/1.1.
    @Test func aPOSTThatMeetsAnHTTP1ServerIsNotSentTwice() async throws {
        let (transport, notices) = try transport()
        let port = try await H2CUpstream.with { upstream, _ in
            #expect(try version(try await transport.send(request(.get, upstream.appending(path: "learn")))) == "2")
            return try #require(upstream.port)
        }
        let directory = try TemporaryDirectory(prefix: "h2c-replaced")
        try await withChildProcess(
            "/usr/bin/env", arguments: ["python3", "-u", "-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", directory.url.path]
        ) {
            server in
            try await server.waitForOutput("http.server's banner") { $0.contains("Serving HTTP") }
            let url = try #require(URL(string: "http://127.0.0.1:\(port)/orders"))
            do {
                let response = try await transport.send(request(.post, url, body: Data("{}".utf8)))
                Issue.record("a POST got \(response.statusCode) from a server that cannot read HTTP/2")
            } catch let error as TransportError {
                #expect(H2CUpstreams.isWrongProtocolAnswer(error), "\(error)")
            }
            let listing = try await transport.send(request(.get, try #require(URL(string: "http://127.0.0.1:\(port)/"))))
            #expect(listing.statusCode == 200)
            let log = server.standardError
            #expect(log.components(separatedBy: "PRI * HTTP/2.0").count == 2, "\(log)")
            #expect(!log.contains("POST"), "\(log)")
            #expect(log.contains("\"GET / HTTP/1.1\" 200"), "\(log)")
            #expect(notices.said.count == 1, "\(notices.said)")
        }
    }

    /// The other way round: an origin learned as HTTP/1.1-only (Python's http.server) is replaced
    /// on its port by one that speaks h2c only (nghttpd, which answers HTTP/1.1 with its SETTINGS).
    /// That answer proves the request was not processed, so it goes again at once with prior
    /// knowledge, a POST too, and the caller gets nghttpd's answer, not the failure. (The streamed
    /// path, the proxy's: `ProxyH2CUpstreamTests`.)
    @Test func anHTTP1OnlyOriginThatTurnsH2COnlyIsAnsweredOverH2CAtOnce() async throws {
        let notices = try await withOriginTurnedH2COnly { transport, url in
            let first = try await transport.send(request(.get, url))
            #expect(first.statusCode == 200 && String(decoding: first.body, as: UTF8.self) == "served")
            let again = try await transport.send(request(.get, url))
            #expect(again.statusCode == 200 && String(decoding: again.body, as: UTF8.self) == "served")
        }
        #expect(notices.said.count == 1, "\(notices.said)")
    }

    @Test func aPOSTToAnHTTP1OnlyOriginThatTurnedH2COnlyIsSentAgainWithPriorKnowledge() async throws {
        _ = try await withOriginTurnedH2COnly { transport, url in
            let streamed = try await transport.stream(request(.post, url, body: Data("{}".utf8)))
            #expect(streamed.head.statusCode == 200)
            var body = Data()
            for try await chunk in streamed.body { body.append(chunk) }
            #expect(String(decoding: body, as: UTF8.self) == "served")
        }
    }

    /// A transport that learned http.server's origin as HTTP/1.1-only, then `body` with the URL of
    /// its file while nghttpd (h2c only) has taken over the port; the transport's notices.
    private func withOriginTurnedH2COnly(_ body: (CurlTransport, URL) async throws -> Void) async throws -> Notices {
        let (transport, notices) = try transport()
        let directory = try TemporaryDirectory(prefix: "h2c-only")
        try Data("served".utf8).write(to: directory.url.appending(path: "file.txt"))
        let port = try await withHTTP1Origin(directory: directory.url.path, transport, notices)
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/file.txt"))
        try await H2COnlyUpstream.with(directory: directory.url.path, port: port) { _ in try await body(transport, url) }
        return notices
    }

    /// Python's http.server serving `directory` until `transport` has learned it speaks HTTP/1.1
    /// only; its port, free again for the h2c-only server.
    private func withHTTP1Origin(directory: String, _ transport: CurlTransport, _ notices: Notices) async throws -> Int {
        try await withChildProcess(
            "/usr/bin/env", arguments: ["python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", directory]
        ) { server in
            // "Serving HTTP on 127.0.0.1 port 45678 (http://127.0.0.1:45678/) ..."
            let banner = try await server.firstLineOfOutput()
            let port = try #require(banner.split(separator: " ").dropFirst(5).first.flatMap { Int($0) }, "\(banner)")
            let url = try #require(URL(string: "http://127.0.0.1:\(port)/file.txt"))
            #expect(try await transport.send(request(.get, url)).statusCode == 200)
            #expect(notices.said.count == 1, "\(notices.said)")
            return port
        }
    }
}
#endif
