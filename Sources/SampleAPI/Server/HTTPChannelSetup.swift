import NIOCore
import NIOHTTP1
import NIOHTTPCompression

typealias HTTPConnectionChannel = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

/// The handlers of every accepted connection, in pipeline order.
enum HTTPChannelSetup {
    static func configure(_ channel: any Channel) throws -> HTTPConnectionChannel {
        let pipeline = channel.pipeline.syncOperations
        // Pipelining assistance holds back a second request until the first response is written,
        // and lets `ChannelShouldQuiesceEvent` close the connection between requests.
        try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: true, withErrorHandling: false)
        try pipeline.addHandler(MalformedRequestResponder())
        let stash = AcceptEncodingStash()
        try pipeline.addHandler(PreferGzipHandler(stash: stash))
        try pipeline.addHandler(HTTPResponseCompressor(responseCompressionPredicate: CompressionMarker.predicate))
        try pipeline.addHandler(RestoreAcceptEncodingHandler(stash: stash))
        return try HTTPConnectionChannel(wrappingChannelSynchronously: channel)
    }
}
