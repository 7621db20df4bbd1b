import Foundation
import TestSupport
import Testing

/// Upstreams given by an IPv6 address (`--upstream http://[::1]:PORT`), each peer listening on
/// ::1 only: Python's http.server for REST (libcurl), the PyPI `websockets` server for WebSocket
/// (SwiftNIO's client) and grpcio's server for gRPC (swift-nio-http2's client), in plain and over
/// TLS with certificates that carry ::1 as an IP entry. The address is bracketed in `Host` and
/// `:authority` and in what the logs name, bare towards the socket, and never sent as SNI.
@Suite(
    "Upstreams given by an IPv6 address",
    .enabled(if: IPv6Loopback.isAvailable, "this machine has no IPv6 loopback (::1) to start the upstreams on")
)
final class ProxyIPv6UpstreamTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("ipv6.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    private func record(_ upstream: URL, _ extra: [String] = [], db: String? = nil) -> [String] {
        ["record", "--upstream", upstream.absoluteString, "--port", "0", "--db", db ?? store] + extra
    }

    @Test func aRESTRequestReachesAnUpstreamOnIPv6() async throws {
        let files = workspace.path("files")
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
        try Data(#"{"served": "over ::1"}"#.utf8).write(to: URL(fileURLWithPath: files + "/data.json"))
        let arguments = ["python3", "-u", "-m", "http.server", "--bind", "::1", "--directory", files, "0"]
        try await withChildProcess("/usr/bin/env", arguments: arguments) { server in
            // "Serving HTTP on ::1 port 45678 (http://[::1]:45678/) ..."
            let banner = try await server.firstLineOfOutput()
            let port = try #require(banner.split(separator: " ").dropFirst(5).first.flatMap { Int($0) }, "\(banner)")
            let upstream = try #require(URL(string: "http://[::1]:\(port)"))
            try await withInProcessProxy(record(upstream)) { proxy in
                let result = try await ExternalTool.run(["curl", "-sS", proxy.url("/data.json").absoluteString], cwd: workspace.directory)
                #expect(result.status == 0 && result.stdout == #"{"served": "over ::1"}"#, "\(result)")
            }
            // http.server logs the client by its address: the request came over IPv6.
            #expect(server.standardError.contains("::1 - - ") && server.standardError.contains(#""GET /data.json HTTP/1.1" 200"#), "\(server.standardError)")
        }
    }

    @Test func aWebSocketConversationIsRecordedFromAnUpstreamOnIPv6() async throws {
        try await WebSocketPeers.withUpstream(bind: "::1") { upstream in
            #expect(upstream.host(percentEncoded: false) == "::1" || upstream.host(percentEncoded: false) == "[::1]", "\(upstream)")
            let received = try await withInProcessProxy(record(upstream)) { proxy in
                try await WebSocketPeers.client("ws://127.0.0.1:\(proxy.port)/chat")
            }
            #expect(received.count == 8, "\(received)")
            #expect(received.last == #"{"closed": 4000, "reason": "server says bye"}"#, "\(received)")
            // The handshake's Host has the address in brackets (before, "::1:PORT"). A store of
            // its own: the one above would replay its conversation.
            let host = try await withInProcessProxy(record(upstream, db: workspace.path("host.db"))) { proxy in
                try await WebSocketPeers.client("ws://127.0.0.1:\(proxy.port)/chat", script: "host")
            }
            let expected = #"\"[::1]:"# + "\(upstream.port ?? 0)" + #"\""#
            #expect(host.contains { $0.contains(#"\"type\": \"host\""#) && $0.contains(expected) }, "\(host)")
        }
        #expect(try await WebSocketPeers.storedConversations(at: store).first?.key == "GET /chat")
    }

    @Test func aGRPCCallIsRecordedFromAnUpstreamOnIPv6() async throws {
        let calls = try await GRPCPeers.withServer(bind: "::1") { upstream in
            #expect(upstream.absoluteString.hasPrefix("http://[::1]:"), "\(upstream)")
            return try await withInProcessProxy(record(upstream)) { proxy in try await GRPCPeers.runClient("get,list", against: proxy.url("")) }
        }
        #expect(calls.map(\.code) == ["OK", "OK"], "\(calls.map(\.line.compactJSON))")
    }

    @Test func aGRPCCallsAuthorityBracketsTheAddress() async throws {
        // PyPI's h2 as the upstream, which says the :authority each GetItem came with.
        try await GRPCResetUpstream.with(bind: "::1") { upstream, events in
            #expect(upstream.absoluteString.hasPrefix("http://[::1]:"), "\(upstream)")
            let calls = try await withInProcessProxy(record(upstream)) { proxy in try await GRPCPeers.runClient("other", against: proxy.url("")) }
            #expect(calls.map(\.code) == ["OK"], "\(calls.map(\.line.compactJSON))")
            // Before, "::1:PORT", which no authority parser reads as an address and a port.
            #expect(events().contains { $0.hasSuffix("for :authority [::1]:\(upstream.port ?? 0)") }, "\(events())")
        }
    }

    @Test func overTLSEachProtocolReachesAnUpstreamOnIPv6WithoutSNI() async throws {
        let certificates = try await TestCertificates.make(in: workspace.directory.path)
        let tls = (certificate: certificates.serverCertificate, key: certificates.serverKey)
        let trust = ["--cacert", certificates.caCertificate]
        try await WebSocketPeers.withUpstream(tls: tls, bind: "::1") { upstream in
            #expect(upstream.absoluteString.hasPrefix("https://[::1]:"), "\(upstream)")
            try await withInProcessProxy(record(upstream, trust)) { proxy in
                let received = try await WebSocketPeers.client("ws://127.0.0.1:\(proxy.port)/chat")
                #expect(received.count == 8, "\(received)")
                // A plain GET goes through libcurl: the upstream's own answer (websockets refuses
                // a request that is no handshake with 426), not a 502.
                let plain = try await ExternalTool.run(
                    ["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", proxy.url("/chat").absoluteString], cwd: workspace.directory)
                #expect(plain.stdout == "426", "\(plain)")
            }
        }
        let calls = try await GRPCPeers.withServer(tls: tls, bind: "::1") { upstream in
            #expect(upstream.absoluteString.hasPrefix("https://[::1]:"), "\(upstream)")
            return try await withInProcessProxy(record(upstream, trust)) { proxy in try await GRPCPeers.runClient("get", against: proxy.url("")) }
        }
        #expect(calls.map(\.code) == ["OK"], "\(calls.map(\.line.compactJSON))")
    }
}
