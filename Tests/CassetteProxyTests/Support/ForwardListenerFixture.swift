import Foundation
import NIOCore
import NIOEmbedded
import TestSupport
import WellPlateCore

@testable import CassetteForward
@testable import CassetteKernel
@testable import CassetteServing

/// The forward listener of `cassette replay --forward` over a store made here, with an authority
/// of its own: its pipeline set up on embedded channels exactly as the server sets it up.
struct ForwardListenerFixture {
    let served: ServedCassette
    let listener: ForwardListener
    /// Where the listener's warnings go (no request log).
    let log: LogLines

    var router: ForwardRouter {
        // `ForwardServing` makes the listener's host routing a `ForwardRouter`.
        listener.hosts as! ForwardRouter
    }

    /// `recordings` keyed as a forward cassette keys them: with their origin.
    static func replaying(
        _ recordings: [Interaction], in directory: TemporaryDirectory, passthroughHosts: [String] = []
    ) async throws
        -> ForwardListenerFixture
    {
        let store = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        try await store.record(batch: recordings)
        let caDirectory = directory.path("ca")
        let authority = try CertificateAuthority.create(in: caDirectory)
        var settings = ProxySettings()
        settings.logRequests = false
        settings.port = 0
        let options = ForwardOptions(caDirectory: caDirectory, passthroughHosts: passthroughHosts.map(HostPattern.init))
        settings.forward = options
        let log = LogLines()
        var context = ServedCassette.Context.testing(store: store, settings: settings)
        context.logger = log.logger
        let served = try await ServedCassette.open("dev", policy: ServingPolicy(mode: .replayOnly), role: .proxy(sessionsOnly: false), context: context)
        let forward = ForwardServing(options: options, leaves: try LeafCertificates(authority: authority))
        return ForwardListenerFixture(served: served, listener: served.forwardListener(forward), log: log)
    }

    static func recording(_ url: String, body: String) -> Interaction {
        Interaction(
            cassette: "dev", method: .get, url: url, key: "GET \(url)", statusCode: 200, responseHeaders: [.contentType: "text/plain"],
            responseBody: Data(body.utf8))
    }

    /// A client's connection to the listener; `front` goes first, where the socket is.
    func connection(front: (any ChannelHandler)? = nil) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        if let front { try channel.pipeline.syncOperations.addHandler(front) }
        try listener.pipeline.configure(channel.pipeline.syncOperations, loop: ConnectionLoop(logShard: 0, storage: LoopStorage(on: channel.eventLoop)))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        return channel
    }
}
