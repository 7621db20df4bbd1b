import CassetteKernel
import CassetteServing
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import WellPlateCore

/// The upstream side of a recorded conversation: SwiftNIO's WebSocket client upgrader over a
/// `ClientBootstrap` on the client connection's event loop, with swift-nio-ssl for `wss` under
/// the listener's TLS settings. libcurl is not used: Debian's 7.88 is built without WebSocket.
package enum UpstreamWebSocket {
    package enum Outcome: Sendable {
        /// The upstream switched: its channel (with a `WebSocketRelay` for the server side
        /// already in place, holding frames until the client side is attached), its `101`, and
        /// the permessage-deflate it agreed to.
        case upgraded(Channel, NIOLoopBound<WebSocketRelay>, HTTPResponseHead, PerMessageDeflate?)
        /// The upstream answered without switching (401, 403, 426, …).
        case refused(HTTPResponseStatus?)
    }

    /// Opens the upstream WebSocket for a client's handshake `head` with `headers` (the client's,
    /// hop-by-hop ones and its key dropped). Throws when the upstream cannot be reached.
    package static func connect(
        url: URL, headers: HTTPHeaders, eventLoop: any EventLoop, tls: WellPlateCore.TLSConfiguration, maxMessageSize: Int,
        recorder: ConversationRecorder?, track: JournalConversation? = nil, log: ProxyLog, logTarget: String
    ) async throws -> Outcome {
        guard let upstream = UpstreamAuthority(url), let scheme = url.scheme?.lowercased() else { throw UpstreamWebSocketError.badURL(url.absoluteString) }
        let host = upstream.host
        let secure = scheme == "https" || scheme == "wss"
        let port = url.port ?? (secure ? 443 : 80)
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        var requestHeaders = headers
        requestHeaders.replaceOrAdd(name: "Host", value: upstream.authority)
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: requestHeaders)
        let sslContext = secure ? try NIOSSLContext(configuration: UpstreamTLS.clientConfiguration(tls)) : nil
        let frameLimit = min(maxMessageSize, Int(UInt32.max))
        let result: EventLoopFuture<Outcome> = try await ClientBootstrap(group: eventLoop)
            .connectTimeout(.seconds(10))
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let sslContext {
                        try channel.pipeline.syncOperations.addHandler(
                            NIOSSLClientHandler(context: sslContext, serverHostname: UpstreamTLS.serverHostname(host)))
                    }
                    let upgrader = NIOTypedWebSocketClientUpgrader<Outcome>(maxFrameSize: frameLimit, enableAutomaticErrorHandling: false) {
                        channel, response in
                        channel.eventLoop.makeCompletedFuture {
                            // An extension the proxy cannot follow: the upstream is left, and the
                            // client's handshake is answered as an HTTP request that failed (the
                            // upgrade logs why, as for every upstream that could not be opened).
                            let deflate: PerMessageDeflate?
                            do {
                                deflate = try PerMessageDeflate.agreed(in: response.headers)
                            } catch {
                                channel.close(promise: nil)
                                throw error
                            }
                            recorder?.upstreamSwitched()
                            let relay = WebSocketRelay(
                                side: .server, recorder: recorder, track: track, maxMessageSize: maxMessageSize, log: log, logTarget: logTarget,
                                inflater: try deflate.map { _ in try MessageInflater() })
                            try channel.pipeline.syncOperations.addHandler(relay)
                            return .upgraded(channel, NIOLoopBound(relay, eventLoop: channel.eventLoop), response, deflate)
                        }
                    }
                    let configuration = NIOTypedHTTPClientUpgradeConfiguration<Outcome>(
                        upgradeRequestHead: head, upgraders: [upgrader],
                        notUpgradingCompletionHandler: { channel in
                            channel.eventLoop.makeCompletedFuture {
                                channel.close(promise: nil)
                                return .refused(nil)
                            }
                        })
                    var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
                    // A server may send its first message in the same read as its `101`: those
                    // bytes go on to the frame decoder instead of being dropped (NIO's default).
                    pipeline.leftOverBytesStrategy = .forwardBytes
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: pipeline)
                }
            }
        do {
            return try await result.get()
        } catch {
            // The TLS handshake fails here, after the connection: swift-nio-ssl's words name
            // neither the upstream nor what to do.
            guard secure, let explained = UpstreamTLS.explained(error, upstream: "https://" + upstream.authority(defaultPort: port)) else {
                throw error
            }
            throw UpstreamWebSocketError.tls(explained)
        }
    }
}

/// Why the upstream WebSocket could not be opened.
package enum UpstreamWebSocketError: Error, CustomStringConvertible {
    case badURL(String)
    /// The upstream's `101` agreed to an extension the client was not offered through the proxy.
    case unknownExtensions(String)
    /// TLS towards the upstream failed: what it means and what to do (`UpstreamTLS.explained`).
    case tls(String)

    package var description: String {
        switch self {
        case .badURL(let url): "the upstream WebSocket URL \(url) has no host; check --upstream"
        case .tls(let explained): explained
        case .unknownExtensions(let value):
            "the upstream agreed to WebSocket extensions the proxy did not offer (\(value)); only permessage-deflate is relayed, so fix the upstream's Sec-WebSocket-Extensions answer"
        }
    }
}
