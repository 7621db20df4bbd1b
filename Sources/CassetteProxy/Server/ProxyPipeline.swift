import NIOCore
import NIOHTTP1

/// The handlers of one client connection, in order. The server and the tests (over an
/// `EmbeddedChannel`) set connections up the same way.
enum ProxyPipeline {
    static func configure(
        _ pipeline: ChannelPipeline.SynchronousOperations, context: ProxyServerContext, logShard: Int,
        targetCache: NIOLoopBoundBox<ReplayTargetCache>
    ) throws {
        // Byte-exact header handlers only where bytes that are not UTF-8 can occur and matter.
        if context.restoresRawHeaderBytes { try pipeline.addHandler(RawHeaderBytesHandler()) }
        let requestHeadBytes = context.keepsRequestHeadBytes ? RequestHeadBytesHandler() : nil
        if let requestHeadBytes { try pipeline.addHandler(requestHeadBytes) }
        try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: true, withErrorHandling: false)
        if let requestHeadBytes {
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(RequestHeadBytesHandler.Observer(requestHeadBytes), position: .after(decoder))
        }
        try pipeline.addHandler(ProxyHandler(server: context, logShard: logShard, targetCache: targetCache))
    }
}
