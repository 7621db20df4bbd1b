import Foundation
import NIOCore
import NIOHTTP1
import WellPlateNetworking

/// The replay-only hot path: the key from the target text, the answer prepared at start-up.
extension ProxyHandler {
    func replayNow(context: ChannelHandlerContext, head: HTTPRequestHead, body: ByteBuffer?, started: NIODeadline) {
        let prepared: PreparedResponse
        var logTarget: String?
        do {
            let method = try ProxyRequestBuilder.method(head)
            let responses = server.prepared
            let secretHeaders = server.secretHeaders(head)
            if server.secretsOccur(in: head.uri, secretHeaders: secretHeaders) || (!secretHeaders.isEmpty && (body?.readableBytes ?? 0) > 0) {
                // A credential repeated in the path, query or body: keyed as it was recorded, not cached.
                let target = try server.requestBuilder.upstreamTarget(head.uri)
                let requestBody = body.map { Data($0.readableBytesView) }
                let interaction = if let keyed = server.keyedHeaders(of: head) {
                    try server.session.replayInteraction(method: method, target: target, headerFields: keyed, body: requestBody, secretHeaders: secretHeaders)
                } else {
                    try server.session.replayInteraction(method: method, target: target, contentType: head.headers.first(name: "content-type"), body: requestBody, secretHeaders: secretHeaders)
                }
                logTarget = server.redactedTarget(head.uri, secretHeaders: secretHeaders)
                if head.method == .HEAD {
                    send(ProxyAnswer(interaction.response, source: .replayed, delay: server.settings.replayDelay(recorded: interaction.duration)), context: context, head: head, started: started)
                    return
                }
                prepared = responses.response(for: interaction)
            } else if head.method == .HEAD {
                // Headers only, with the recorded GET length: not the prepared form.
                let interaction = try server.session.replayInteraction(keyText: try cachedTarget(method: method, uri: head.uri).keyText)
                send(server.responder.answer(replaying: interaction, response: interaction.response, target: server.redactedTarget(head.uri, secretHeaders: server.secretHeaders(head))), context: context, head: head, started: started)
                return
            } else if let keyed = server.keyedHeaders(of: head) {
                // Conditional or matched headers are part of the key: not cacheable per target.
                let target = try server.requestBuilder.upstreamTarget(head.uri)
                let interaction = try server.session.replayInteraction(method: method, target: target, headerFields: keyed, body: body.map { Data($0.readableBytesView) }, secretHeaders: secretHeaders)
                prepared = responses.response(for: interaction)
            } else if let body, body.readableBytes > 0 {
                let target = try server.requestBuilder.upstreamTarget(head.uri)
                let interaction = try server.session.replayInteraction(method: method, target: target, contentType: head.headers.first(name: "content-type"), body: Data(body.readableBytesView))
                prepared = responses.response(for: interaction)
            } else {
                let cached = try cachedTarget(method: method, uri: head.uri)
                logTarget = cached.logTarget
                let session = server.session
                let id = if let slot = cached.slot {
                    try session.replayRecordingID(slot: slot, keyText: cached.keyText)
                } else {
                    try session.replayRecordingID(keyText: cached.keyText)
                }
                guard let found = id.flatMap(responses.response(id:)) else {
                    // Every recording of a replay-only proxy is prepared at start-up.
                    throw ProxyRequestError(status: 500, code: "internal_error", message: "recording \(id.map(String.init) ?? "without id") of \(cached.keyText) was not prepared")
                }
                prepared = found
            }
        } catch {
            send(server.responder.answer(for: error), context: context, head: head, started: started)
            return
        }
        // One leading back to the upstream is answered whole, by the writer that rewrites it per address.
        if let chunks = prepared.chunks, prepared.upstreamURLs == nil {
            replayStreamed(prepared, chunks: chunks, context: context, head: head, logTarget: logTarget, started: started)
            return
        }
        let delay = server.settings.replayDelay(recorded: prepared.duration)
        guard delay > .zero else {
            write(prepared, context: context, head: head, logTarget: logTarget, started: started)
            return
        }
        let target = logTarget
        schedule(after: delay, context: context) { handler, context in
            handler.write(prepared, context: context, head: head, logTarget: target, started: started)
        }
    }

    /// A client on a keep-alive connection repeats the same few requests; their keys, index slots
    /// and log paths are kept per connection (no lock), so normalization, redaction and hashing
    /// the key run once per distinct target.
    private func cachedTarget(method: WellPlateNetworking.HTTPMethod, uri: String) throws(ProxyRequestError) -> CachedTarget {
        let cacheKey = CachedTarget.Key(method: method, uri: uri)
        if let cached = targetCache[cacheKey] { return cached }
        let keyText = server.session.keyText(method: method, target: try server.requestBuilder.upstreamTarget(uri))
        let cached = CachedTarget(keyText: keyText, slot: server.session.index.slot(for: keyText), logTarget: server.redactedTarget(uri))
        if targetCache.count >= Self.targetCacheLimit { targetCache.removeAll(keepingCapacity: true) }
        targetCache[cacheKey] = cached
        return cached
    }

    struct CachedTarget {
        struct Key: Hashable {
            let method: WellPlateNetworking.HTTPMethod
            let uri: String
        }

        let keyText: String
        /// `nil` for a key without recordings: looked up by text again, as a miss is rare.
        let slot: ReplayIndex.Slot?
        let logTarget: String
    }

    private static let targetCacheLimit = 512
}
