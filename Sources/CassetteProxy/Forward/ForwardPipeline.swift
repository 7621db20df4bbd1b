import NIOCore
import NIOHTTP1

/// The forward proxy's listener: HTTP/1.1 with `CONNECT` taken by `ConnectHandler`, and every
/// other request answered by `ProxyHandler` with the parts of its host (`ForwardRouter`).
struct ForwardPipeline: ConnectionPipeline {
    let router: ForwardRouter

    func configure(_ pipeline: ChannelPipeline.SynchronousOperations, logShard: Int, targetCache: NIOLoopBoundBox<ReplayTargetCache>) throws {
        try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: true, withErrorHandling: false)
        try pipeline.addHandler(ConnectHandler(router: router, logShard: logShard))
        try pipeline.addHandler(ProxyHandler(parts: router.base.parts, logShard: logShard, targetCache: targetCache, forward: router))
    }
}
