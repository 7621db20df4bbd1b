import NIOCore
import NIOHTTP2

/// Sits after `NIOHTTP2Handler` on a pooled upstream connection and tells the pool what the
/// peer says about the connection as a whole: its SETTINGS (how many streams it takes at once;
/// nil when they leave the limit out) and its GOAWAY (take no new calls here). The streams' own
/// frames go to their channels.
final class GRPCPoolWatcher: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame

    private let settingsReceived: (_ maxConcurrentStreams: Int?) -> Void
    private let goAwayReceived: () -> Void

    init(settingsReceived: @escaping (_ maxConcurrentStreams: Int?) -> Void, goAwayReceived: @escaping () -> Void) {
        self.settingsReceived = settingsReceived
        self.goAwayReceived = goAwayReceived
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data).payload {
        case .settings(.settings(let settings)):
            settingsReceived(settings.last { $0.parameter == .maxConcurrentStreams }?.value)
        case .goAway:
            goAwayReceived()
        default:
            break
        }
        context.fireChannelRead(data)
    }
}
