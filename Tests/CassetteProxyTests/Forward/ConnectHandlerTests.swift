import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1
import TestSupport
import Testing
import WellPlateCore

@testable import CassetteForward
@testable import CassetteKernel
@testable import CassetteServing

/// `ConnectHandler` on the forward listener of `cassette replay --forward`, over an embedded
/// channel: a CONNECT to a recorded host is answered `200 Connection Established`, the HTTP
/// handlers leave, and the tunnel's first byte sets up TLS or plain HTTP served by that host's
/// pipeline; a CONNECT that cannot be served gets a status saying why and a lingering close;
/// anything else goes on to the kernel's handler.
///
/// A host passed on untouched (`--passthrough-host` when recording) is tunnelled with a
/// `ClientBootstrap` on the channel's event loop, which an `EmbeddedEventLoop` cannot be: that
/// branch is left to the tests that start a proxy.
@Suite("CONNECT on the forward listener over an embedded channel")
final class ConnectHandlerTests {
    let directory: TemporaryDirectory
    let fixture: ForwardListenerFixture

    init() async throws {
        directory = try TemporaryDirectory(prefix: "connect")
        fixture = try await ForwardListenerFixture.replaying(
            [
                ForwardListenerFixture.recording("https://api.example.com/a", body: "secure"),
                ForwardListenerFixture.recording("http://api.example.com:8080/a", body: "plain"),
            ], in: directory, passthroughHosts: ["pay.example.com"])
    }

    static let established = "HTTP/1.1 200 Connection Established\r\n\r\n"

    /// The handlers that serve HTTP on the listener, none of which may stay in a tunnel.
    static let httpHandlers = [
        "HTTPConnectionHandler", "ConnectHandler", "HTTPServerPipelineHandler", "NIOHTTPResponseHeadersValidator", "HTTPResponseEncoder",
        "ByteToMessageHandler",
    ]

    func send(_ text: String, to channel: EmbeddedChannel) throws {
        try channel.writeInbound(ByteBuffer(string: text))
    }

    @Test func aConnectToARecordedHostIsEstablishedAndTheHTTPHandlersLeave() throws {
        let channel = try fixture.connection()
        #expect(channel.handlerTypes.contains("ConnectHandler"))
        try send("CONNECT api.example.com:443 HTTP/1.1\r\nHost: api.example.com:443\r\n\r\n", to: channel)
        #expect(try channel.writtenText() == Self.established)
        let handlers = channel.handlerTypes
        #expect(Set(handlers).isDisjoint(with: Self.httpHandlers), "\(handlers)")
        #expect(handlers.last == "TunnelProtocolSniffer", "\(handlers)")
        #expect(channel.isActive)
    }

    @Test func theAnswerKeepsTheClientsHTTPVersion() throws {
        let channel = try fixture.connection()
        try send("CONNECT api.example.com:443 HTTP/1.0\r\n\r\n", to: channel)
        #expect(try channel.writtenText() == "HTTP/1.0 200 Connection Established\r\n\r\n")
    }

    @Test func plainHTTPInTheTunnelIsServedByThePipelineOfTheHostsHTTPOrigin() throws {
        let channel = try fixture.connection()
        try send("CONNECT api.example.com:8080 HTTP/1.1\r\nHost: api.example.com:8080\r\n\r\n", to: channel)
        #expect(try channel.writtenText() == Self.established)
        try send("GET /a HTTP/1.1\r\nHost: api.example.com:8080\r\n\r\n", to: channel)
        let answer = try channel.writtenText()
        #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(answer)")
        #expect(answer.hasSuffix("\r\n\r\nplain"), "\(answer)")
        #expect(!channel.handlerTypes.contains("TunnelProtocolSniffer"))
    }

    @Test func aTLSHandshakeInTheTunnelSetsUpTLSWithTheWatcherInFrontOfALPN() throws {
        let channel = try fixture.connection()
        try send("CONNECT api.example.com:443 HTTP/1.1\r\n\r\n", to: channel)
        _ = try channel.writtenText()
        // The start of a ClientHello record: TLS waits for the rest.
        try channel.writeInbound(ByteBuffer(bytes: [0x16, 0x03, 0x01, 0x00, 0x40]))
        let handlers = channel.handlerTypes
        let tls = try #require(handlers.firstIndex(of: "NIOSSLServerHandler"), "\(handlers)")
        #expect(handlers[tls + 1] == "ClientTLSWatcher", "\(handlers)")
        // The host's pipeline, HTTP/1.1 or HTTP/2, is set up once ALPN has chosen.
        #expect(handlers[tls + 2] == "ApplicationProtocolNegotiationHandler", "\(handlers)")
        #expect(!handlers.contains("TunnelProtocolSniffer"))
    }

    /// RFC 9110 §9.3.6: a CONNECT has no content, so NIO's decoder ends it with its head.
    @Test func aConnectWithAContentLengthIsEstablishedAtTheEndOfItsHead() throws {
        let channel = try fixture.connection()
        try send("CONNECT api.example.com:443 HTTP/1.1\r\nContent-Length: 3\r\n\r\n", to: channel)
        #expect(try channel.writtenText() == Self.established)
        #expect(channel.handlerTypes.last == "TunnelProtocolSniffer")
    }

    /// The reason of a refusal, as the client reads it.
    func expectReason(_ reason: String, in answer: String) {
        // NIO's encoder frames every response to a CONNECT as bodyless (what RFC 9110 §9.3.6 asks
        // of a 2xx only): the refusal's Content-Length and text never reach the client.
        withKnownIssue("the text of a refused CONNECT is dropped by HTTPResponseEncoder") {
            #expect(answer.contains("Content-Length: \(reason.utf8.count + 1)\r\n"), "\(answer)")
            #expect(answer.hasSuffix("\r\n\r\n\(reason)\n"), "\(answer)")
        }
        #expect(answer.hasSuffix("\r\n\r\n"), "\(answer)")
    }

    /// A client may send its first bytes for the tunnel right behind the CONNECT, in the same read.
    @Test func bytesSentBehindTheConnectInTheSameReadReachTheTunnel() throws {
        let channel = try fixture.connection()
        try send("CONNECT api.example.com:8080 HTTP/1.1\r\n\r\nGET /a HTTP/1.1\r\nHost: api.example.com:8080\r\n\r\n", to: channel)
        let written = try channel.writtenText()
        #expect(written.hasPrefix(Self.established))
        // The decoder hands its left-over bytes on as it is removed, before the sniffer is
        // added: they reach the end of the pipeline, where a real channel drops them.
        let leftAtTheEnd = try channel.readInbound(as: ByteBuffer.self)
        withKnownIssue("bytes pipelined behind a CONNECT never reach the tunnel") {
            #expect(written.hasSuffix("\r\n\r\nplain"), "\(written)")
            #expect(leftAtTheEnd == nil)
        }
    }

    @Test func aConnectToAHostWithNoRecordingsIsRefusedWithTheMissStatusAndALingeringClose() throws {
        let socket = SocketStandIn()
        let channel = try fixture.connection(front: socket)
        try send("CONNECT other.example.com:443 HTTP/1.1\r\nHost: other.example.com:443\r\n\r\n", to: channel)
        let answer = try channel.writtenText()
        let reason =
            "cassette \"dev\" has no recordings of https://other.example.com, and `cassette replay --forward` forwards nothing; record it with `cassette record --forward`"
        #expect(answer.hasPrefix("HTTP/1.1 404 Not Found\r\n"), "\(answer)")
        #expect(answer.contains("Content-Type: text/plain; charset=utf-8\r\n"))
        #expect(answer.contains("Connection: close\r\n"))
        #expect(answer.contains("X-Cassette: miss\r\n"))
        expectReason(reason, in: answer)
        #expect(fixture.served.session.statistics.missed == 1)
        #expect(fixture.log.lines.contains("CONNECT other.example.com:443 refused: \(reason)"), "\(fixture.log.lines)")

        // The write side is shut; what the client sent behind the CONNECT (its TLS hello) is drained, never answered.
        #expect(socket.outputCloses == 1)
        let handlers = channel.handlerTypes
        #expect(handlers.firstIndex(of: "LingeringClose").map { handlers[$0 + 1] } == "ByteToMessageHandler", "\(handlers)")
        try channel.writeInbound(ByteBuffer(bytes: [0x16, 0x03, 0x01, 0x00, 0x40]))
        try send("GET http://api.example.com:8080/a HTTP/1.1\r\nHost: api.example.com:8080\r\n\r\n", to: channel)
        #expect(try channel.writtenText().isEmpty)
        #expect(channel.isActive)
    }

    @Test func aConnectToAPassedOnHostIsRefusedByAReplayingProxy() throws {
        let channel = try fixture.connection()
        try send("CONNECT pay.example.com:443 HTTP/1.1\r\n\r\n", to: channel)
        let answer = try channel.writtenText()
        #expect(answer.hasPrefix("HTTP/1.1 404 Not Found\r\n"), "\(answer)")
        expectReason("pay.example.com:443 is never recorded (--passthrough-host pay.example.com), and `cassette replay --forward` forwards nothing", in: answer)
        #expect(fixture.log.lines.contains { $0.hasPrefix("CONNECT pay.example.com:443 refused: ") })
        // No socket stand-in: `EmbeddedChannel` takes the lingering close's half-closure as a close.
        #expect(!channel.isActive)
    }

    @Test(arguments: ["api.example.com", "api.example.com:0", "user@api.example.com:443", "/path:443"])
    func aTargetThatIsNotHostAndPortGets400(target: String) throws {
        let channel = try fixture.connection()
        try send("CONNECT \(target) HTTP/1.1\r\n\r\n", to: channel)
        let answer = try channel.writtenText()
        #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(answer)")
        expectReason("CONNECT needs a target of the form host:port, such as api.example.com:443; got \(target)", in: answer)
        #expect(answer.contains("X-Cassette: miss\r\n"))
        // A malformed request is no miss of the cassette.
        #expect(fixture.served.session.statistics.missed == 0)
    }

    @Test func aRequestThatIsNotAConnectGoesOnToTheKernelsHandler() throws {
        let channel = try fixture.connection()
        try send("GET http://api.example.com:8080/a HTTP/1.1\r\nHost: api.example.com:8080\r\n\r\n", to: channel)
        let answer = try channel.writtenText()
        #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(answer)")
        #expect(answer.hasSuffix("\r\n\r\nplain"), "\(answer)")
        // Still an HTTP connection, able to CONNECT next.
        try send("CONNECT api.example.com:443 HTTP/1.1\r\n\r\n", to: channel)
        #expect(try channel.writtenText() == Self.established)
    }
}
