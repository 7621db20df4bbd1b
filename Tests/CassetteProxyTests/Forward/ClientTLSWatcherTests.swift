import NIOCore
import NIOEmbedded
import NIOTLS
import TestSupport
import Testing
import WellPlateCore

@testable import CassetteForward
@testable import CassetteKernel
@testable import CassetteServing

/// `ClientTLSWatcher` behind the TLS handler of an intercepted connection, over an embedded
/// channel: a handshake that fails or is broken off is one log line naming the host and the
/// certificate to trust, and the connection closes; once the handshake is done it only passes
/// events and errors on.
@Suite("Client TLS watcher over an embedded channel")
final class ClientTLSWatcherTests {
    let directory: TemporaryDirectory
    let fixture: ForwardListenerFixture

    init() async throws {
        directory = try TemporaryDirectory(prefix: "tls-watcher")
        fixture = try await ForwardListenerFixture.replaying(
            [ForwardListenerFixture.recording("https://api.example.com/a", body: "secure")], in: directory)
    }

    /// An error as BoringSSL's come through NIOSSL, described with its reason codes.
    struct HandshakeError: Error, CustomStringConvertible {
        let description: String
    }

    static let unknownCA = HandshakeError(
        description: "handshakeFailed(NIOSSL.BoringSSLError.sslError([Error: 268436502 error:10000416:SSL routines:OPENSSL_internal:TLSV1_ALERT_UNKNOWN_CA]))")

    var trust: String {
        "trust cassette's certificate authority in the client: \(fixture.router.leaves.authority.certificatePath) (`cassette ca path`)"
    }

    func channel() throws -> (EmbeddedChannel, InboundRecorder<ByteBuffer>) {
        let behind = InboundRecorder<ByteBuffer>()
        let channel = EmbeddedChannel(handlers: [ClientTLSWatcher(host: "api.example.com", router: fixture.router, logShard: 0), behind])
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        return (channel, behind)
    }

    @Test func aClientThatRejectsTheCertificateIsOneLineNamingTheAuthorityAndTheConnectionCloses() throws {
        let (channel, behind) = try channel()
        channel.pipeline.fireErrorCaught(Self.unknownCA)
        #expect(!channel.isActive)
        #expect(behind.errors.isEmpty)
        #expect(
            fixture.log.lines == [
                "TLS for api.example.com failed: the client rejected cassette's certificate (TLSV1_ALERT_UNKNOWN_CA), so it does not trust the authority; \(trust)"
            ])
    }

    @Test func anotherHandshakeFailureSaysTheClientBrokeItOff() throws {
        let (channel, _) = try channel()
        channel.pipeline.fireErrorCaught(HandshakeError(description: "unexpected EOF during handshake"))
        #expect(!channel.isActive)
        #expect(
            fixture.log.lines == [
                "TLS for api.example.com failed: the client broke off the handshake (unexpected EOF during handshake), most likely because it does not trust cassette's certificate; \(trust)"
            ])
    }

    @Test func aClientThatClosesDuringTheHandshakeIsReported() throws {
        let (channel, _) = try channel()
        try channel.close().wait()
        #expect(
            fixture.log.lines == [
                "TLS for api.example.com failed: the client closed the connection during the handshake, most likely because it does not trust cassette's certificate; \(trust)"
            ])
    }

    @Test func aFailedHandshakeIsReportedOnceThoughTheCloseFollows() throws {
        let (channel, _) = try channel()
        channel.pipeline.fireErrorCaught(Self.unknownCA)
        channel.pipeline.fireErrorCaught(HandshakeError(description: "again"))
        channel.embeddedEventLoop.run()
        #expect(fixture.log.lines.count == 1)
    }

    @Test func onceTheHandshakeIsDoneErrorsAndTheCloseGoOnUnreported() throws {
        let (channel, behind) = try channel()
        channel.pipeline.fireUserInboundEventTriggered(TLSUserEvent.handshakeCompleted(negotiatedProtocol: "http/1.1"))
        #expect(behind.events.count == 1)
        channel.pipeline.fireErrorCaught(connectionReset)
        #expect(behind.errors.count == 1)
        #expect(channel.isActive)
        try channel.close().wait()
        #expect(fixture.log.lines.isEmpty)
    }

    @Test(arguments: [
        ("error:10000416:SSL routines:OPENSSL_internal:TLSV1_ALERT_UNKNOWN_CA", "TLSV1_ALERT_UNKNOWN_CA", true),
        (
            "sslError([Error: 1 error:10000412:SSL routines:OPENSSL_internal:SSLV3_ALERT_BAD_CERTIFICATE, Error: 2 error:1:x:OPENSSL_internal:CERTIFICATE_UNKNOWN])",
            "SSLV3_ALERT_BAD_CERTIFICATE, CERTIFICATE_UNKNOWN", true
        ),
        ("uncleanShutdown", "uncleanShutdown", false),
    ])
    func theReasonIsTheTLSLibrarysCodes(error: String, reason: String, rejection: Bool) {
        #expect(ClientTLSWatcher.reason(error) == reason)
        #expect(ClientTLSWatcher.isRejection(error) == rejection)
    }
}
