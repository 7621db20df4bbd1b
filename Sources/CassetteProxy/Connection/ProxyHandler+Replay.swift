import CassetteTools
import Foundation
import NIOCore
import NIOHTTP1
import WellPlateCore
import WellPlateNetworking

/// The replay-only hot path. Every request, whatever its method, body or headers, goes one way:
/// its key, the key's slot in the index, the recording the slot's sequence picks, and the answer
/// prepared for that recording at start-up. A miss throws at the pick and is answered as an error.
extension ProxyHandler {
    func replayNow(context: ChannelHandlerContext, head: HTTPRequestHead, body: ByteBuffer?, started: NIODeadline) {
        let prepared: PreparedResponse
        let logTarget: String
        do {
            let target = try replayTarget(head: head, body: body)
            prepared = server.prepared.answer(for: try server.session.replayPick(slot: target.slot, keyText: target.keyText, key: target.key))
            logTarget = target.logTarget
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
        schedule(after: delay, context: context) { handler, context in
            handler.write(prepared, context: context, head: head, logTarget: logTarget, started: started)
        }
    }

    /// The request's key, slot and log target. A request whose key is its method and target alone
    /// (no body, no keyed headers, no credential repeated in the target) is cached per event loop;
    /// the others are keyed each time.
    private func replayTarget(head: HTTPRequestHead, body: ByteBuffer?) throws -> CachedTarget {
        let method = try ProxyRequestBuilder.method(head)
        if (body?.readableBytes ?? 0) == 0, !server.carriesKeyingHeaders(head) {
            return try cachedTarget(method: method, uri: head.uri)
        }
        let secretHeaders = server.secretHeaders(head)
        let keyed = server.keyedHeaders(of: head)
        let secretsOccur = server.secretsOccur(in: head.uri, secretHeaders: secretHeaders)
        guard keyed != nil || (body?.readableBytes ?? 0) > 0 || secretsOccur else {
            return try cachedTarget(method: method, uri: head.uri)
        }
        let session = server.session
        let key = session.replayKey(
            method: method, target: try server.requestBuilder.upstreamTarget(head.uri),
            contentType: head.headers.first(name: "content-type"), body: body.map { Data($0.readableBytesView) },
            secretHeaders: secretHeaders, headerFields: keyed ?? [:]
        )
        let logTarget = secretsOccur ? server.redactedTarget(head.uri, secretHeaders: secretHeaders) : server.redactedTarget(head.uri)
        return CachedTarget(keyText: key.rawValue, slot: session.index.slot(for: key.rawValue), logTarget: logTarget, key: key)
    }

    /// Clients repeat the same few requests; their keys, index slots and log paths are kept per
    /// event loop (`ReplayTargetCache`, no lock), so normalization, redaction and hashing the key
    /// run once per distinct target on each loop, whichever connection asks.
    private func cachedTarget(method: WellPlateCore.HTTPMethod, uri: String) throws(ProxyRequestError) -> CachedTarget {
        let cacheKey = CachedTarget.Key(method: method, uri: uri)
        if let cached = targetCache.value[cacheKey] { return cached }
        let keyText = server.session.keyText(method: method, target: try server.requestBuilder.upstreamTarget(uri))
        let cached = CachedTarget(keyText: keyText, slot: server.session.index.slot(for: keyText), logTarget: server.redactedTarget(uri))
        targetCache.value.insert(cached, for: cacheKey)
        return cached
    }
}
