import Foundation
import TestSupport
import Testing
import WellPlateCore

/// Recording reuses upstream connections as a gRPC client does: calls are streams on a shared
/// HTTP/2 connection, up to the server's SETTINGS_MAX_CONCURRENT_STREAMS; a GOAWAY lets the
/// calls in flight finish and sends the next ones to a new connection; a connection that dies is
/// dropped. The grpcio server counts the connections: it logs each call's `context.peer()`, the
/// client's address and port, which name the call's TCP connection (`GRPCPeerServer`).
@Suite("gRPC recording shares upstream connections, follows GOAWAY and reconnects")
final class ProxyGRPCUpstreamPoolTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("grpc.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    private func recorder<Result>(_ upstream: URL, _ body: (InProcessProxy) async throws -> Result) async throws -> Result {
        let directory = try TemporaryDirectory(prefix: "grpc-protoset")
        let protoset = try await GRPCPeers.protoset(in: directory).path
        return try await withInProcessRecorder(upstream: upstream, store: store, arguments: ["--protoset", protoset], body)
    }

    @Test("calls one after another, at once on one client, and from two clients at once, all go on one upstream connection")
    func callsShareOneConnection() async throws {
        try await GRPCPeerServer.with { server in
            try await recorder(server.url) { proxy in
                let sequential = try await GRPCPeers.runClient("get,other,list,count,chat", against: proxy.url(""))
                #expect(sequential.map(\.code) == ["OK", "OK", "OK", "OK", "OK"], "\(sequential.map(\.line.compactJSON))")
                let parallel = try await GRPCPeers.runClient("parallel:6", against: proxy.url(""))
                #expect(parallel.map(\.code) == ["OK"], "\(parallel.map(\.line.compactJSON))")
                async let first = GRPCPeers.runClient("parallel:4", against: proxy.url(""))
                async let second = GRPCPeers.runClient("parallel:4", against: proxy.url(""))
                let both = try await first + second
                #expect(both.map(\.code) == ["OK", "OK"], "\(both.map(\.line.compactJSON))")
                try await server.waitForCalls(5 + 6 + 8)
                #expect(server.calls.count == 5 + 6 + 8, "\(server.calls)")
                #expect(server.connections == 1, "\(server.calls)")
            }
        }
    }

    @Test("calls to a TLS upstream share one connection: one TLS handshake for all of them")
    func tlsCallsShareOneConnection() async throws {
        let certificates = try await TestCertificates.make(in: workspace.directory.path)
        let tls = (certificate: certificates.serverCertificate, key: certificates.serverKey)
        try await GRPCPeerServer.with(tls: tls) { server in
            #expect(server.url.scheme == "https")
            let directory = try TemporaryDirectory(prefix: "grpc-protoset")
            let protoset = try await GRPCPeers.protoset(in: directory).path
            let arguments = ["--protoset", protoset, "--cacert", certificates.caCertificate]
            try await withInProcessRecorder(upstream: server.url, store: store, arguments: arguments) { proxy in
                let calls = try await GRPCPeers.runClient("get,list,parallel:3", against: proxy.url(""))
                #expect(calls.map(\.code) == ["OK", "OK", "OK"], "\(calls.map(\.line.compactJSON))")
                let again = try await GRPCPeers.runClient("other", against: proxy.url(""))
                #expect(again.map(\.code) == ["OK"], "\(again.map(\.line.compactJSON))")
                try await server.waitForCalls(6)
                #expect(server.calls.count == 6 && server.connections == 1, "\(server.calls)")
            }
        }
    }

    @Test("a server that takes two streams at once gets more connections for the calls beyond, not one per call")
    func maxConcurrentStreamsOpensAnotherConnection() async throws {
        try await GRPCPeerServer.with(maxStreams: 2) { server in
            try await recorder(server.url) { proxy in
                let calls = try await GRPCPeers.runClient("parallel:5", against: proxy.url(""))
                #expect(calls.map(\.code) == ["OK"], "\(calls.map(\.line.compactJSON))")
                try await server.waitForCalls(5)
                #expect(server.calls.count == 5, "\(server.calls)")
                // Two on the first connection, two on a second, one on a third (or on a slot freed meanwhile).
                #expect((2...3).contains(server.connections), "\(server.calls)")
            }
        }
    }

    @Test("a graceful stop (GOAWAY) mid-call: the server stream finishes and is recorded; the next calls reach the server restarted on the port")
    func gracefulStopThenRestart() async throws {
        try await GRPCPeerServer.with { first in
            let port = try #require(first.url.port)
            try await recorder(first.url) { proxy in
                let before = try await GRPCPeers.runClient("get,other", against: proxy.url(""))
                #expect(before.map(\.code) == ["OK", "OK"], "\(before.map(\.line.compactJSON))")
                let drained = try await GRPCPeers.withClient("list-drain", against: proxy.url("")) { client in
                    try await client.waitForOutput("the first item") { $0.contains(#""held""#) }
                    // grpcio's server.stop(grace=30): GOAWAY, the call in flight finishes, then it exits.
                    #expect(try await first.stopGracefully() == .exited(0), "\(first.process.standardError)")
                    _ = try await client.waitForExit()
                    return try GRPCPeers.calls(in: client.standardOutput)
                }
                #expect(drained.map(\.code) == ["OK"], "\(drained.map(\.line.compactJSON))")
                #expect(
                    drained.first?.line["body"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["b1", "b2", "t1"], "\(drained.map(\.line.compactJSON))")
                #expect(first.process.standardOutput.contains("stopping"))
                #expect(first.calls.count == 3 && first.connections == 1, "\(first.calls)")

                try await GRPCPeerServer.with(port: port) { second in
                    let after = try await GRPCPeers.runClient("get,other", against: proxy.url(""))
                    #expect(after.map(\.code) == ["OK", "OK"], "\(after.map(\.line.compactJSON))")
                    try await second.waitForCalls(2)
                    #expect(second.calls.count == 2 && second.connections == 1, "\(second.calls)")
                }
                _ = await proxy.stop()
                #expect(
                    proxy.outputLines.contains { $0.hasPrefix("POST /shop.v1.Catalog/ListItems 200 ") && $0.hasSuffix(" gRPC OK recorded") },
                    "\(proxy.outputLines)")
            }
        }
        let opened = try await CassetteStore.open(path: store, access: .readOnly)
        let lists = try await opened.conversations(cassette: "dev").filter { $0.key == "POST /shop.v1.Catalog/ListItems" }
        try await opened.close()
        #expect(lists.count == 1)
        #expect(lists.first?.end == .closed(by: .server, code: 0, reason: ""), "\(String(describing: lists.first?.end))")
        #expect(lists.first?.messages.filter { $0.isData && $0.direction == .server }.count == 3)
    }

    @Test("the upstream killed mid-call: that call ends UNAVAILABLE, and the next calls reach the server restarted on the port")
    func killedThenRestart() async throws {
        try await GRPCPeerServer.with { first in
            let port = try #require(first.url.port)
            try await recorder(first.url) { proxy in
                let before = try await GRPCPeers.runClient("get,other", against: proxy.url(""))
                #expect(before.map(\.code) == ["OK", "OK"], "\(before.map(\.line.compactJSON))")
                // The server exits (os._exit) with the Chat stream open on the shared connection.
                let crashed = try await GRPCPeers.runClient("chat-crash", against: proxy.url(""))
                #expect(crashed.map(\.code) == ["UNAVAILABLE"], "\(crashed.map(\.line.compactJSON))")
                #expect(
                    crashed.first?.line["details"] == .string("cassette: the upstream closed its connection before the call ended"),
                    "\(crashed.map(\.line.compactJSON))")
                #expect(try await first.process.waitForExit() == .exited(3))
                #expect(first.calls.count == 3 && first.connections == 1, "\(first.calls)")

                try await GRPCPeerServer.with(port: port) { second in
                    let after = try await GRPCPeers.runClient("get,other", against: proxy.url(""))
                    #expect(after.map(\.code) == ["OK", "OK"], "\(after.map(\.line.compactJSON))")
                    try await second.waitForCalls(2)
                    #expect(second.calls.count == 2 && second.connections == 1, "\(second.calls)")
                }
            }
        }
    }

    @Test("a call the upstream's GOAWAY refused unprocessed (above its last stream ID) is sent again on a new connection and recorded once")
    func refusedStreamIsSentAgain() async throws {
        try await GRPCResetUpstream.with { upstream, events in
            try await recorder(upstream) { proxy in
                let calls = try await GRPCPeers.runClient("other,goaway", against: proxy.url(""))
                #expect(calls.map(\.code) == ["OK", "OK"], "\(calls.map(\.line.compactJSON))")
                #expect(calls.last?.line["body"]?["id"] == .string("b1"), "\(calls.map(\.line.compactJSON))")
                // Stream 3 of the shared connection refused; stream 1 of a new one answered. (The
                // upstream also names each answered call's :authority, which is not in question here.)
                let said = events().map { $0.components(separatedBy: " for :authority ")[0] }
                #expect(
                    said == [
                        "answered GetItem b2 on stream 1", "refused GetItem goaway on stream 3 with GOAWAY, last stream 1",
                        "answered GetItem goaway on stream 1",
                    ], "\(said)")
                _ = await proxy.stop()
                #expect(proxy.outputLines.filter { $0.hasPrefix("POST /shop.v1.Catalog/GetItem 200 ") }.count == 2, "\(proxy.outputLines)")
                // Said in the request log, as other notices about the upstream are.
                #expect(
                    proxy.outputLines.contains {
                        $0.hasSuffix("went away (GOAWAY) before taking a call to /shop.v1.Catalog/GetItem; sent again on a new connection")
                    },
                    "\(proxy.outputLines)")
            }
        }
    }
}
