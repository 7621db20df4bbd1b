import NIOCore
import NIOHTTP2

/// Sits after `NIOHTTP2Handler` on a pooled upstream connection and tells the pool what the
/// peer says about the connection as a whole: its SETTINGS (how many streams it takes at once)
/// and its GOAWAY (take no new calls here). The streams' own frames go to their channels.
final class GRPCPoolWatcher: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame

    private let pool: GRPCUpstreamPool
    private let id: Int

    init(pool: GRPCUpstreamPool, id: Int) {
        self.pool = pool
        self.id = id
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data).payload {
        case .settings(.settings(let settings)):
            let limit = settings.last { $0.parameter == .maxConcurrentStreams }?.value
            pool.settingsReceived(id, maxConcurrentStreams: limit)
        case .goAway:
            pool.goAwayReceived(id)
        default:
            break
        }
        context.fireChannelRead(data)
    }
}
