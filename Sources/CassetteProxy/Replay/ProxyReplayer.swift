import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import WellPlateCore
import WellPlateNetworking

/// The replay-only hot path, answered on the event loop. Every request, whatever its method, body
/// or headers, goes one way: its key, the key's slot in the index, the recording the slot's
/// sequence picks, and the answer made for that recording at start-up. A miss throws at the pick
/// and is answered as an error.
struct ProxyReplayer: Sendable {
    let session: CassetteSession
    let answers: PreparedAnswers
    let requestBuilder: ProxyRequestBuilder

    var keyer: ReplayKeyer { session.keyer }

    /// The answer to one request and its target: as logged, and its key (for a session's journal).
    /// `cache`: the targets this event loop has keyed before.
    func answer(head: HTTPRequestHead, body: ByteBuffer?, cache: NIOLoopBoundBox<ReplayTargetCache>) throws -> (ProxyAnswer, target: CachedTarget) {
        let target = try replayTarget(head: head, body: body, cache: cache)
        let pick: ReplayIndex.Pick
        do {
            pick = try session.replayPick(slot: target.slot, keyText: target.keyText, key: target.key)
        } catch let miss as CassetteMiss {
            // Only on a miss: the request's headers confirm (or not) the recording's `Vary`.
            var fields = HTTPFields()
            for header in head.headers {
                if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
            }
            throw miss.explained(by: fields, redactor: keyer.redactor)
        }
        return (answers.answer(for: pick), target)
    }

    /// The request's key, slot and log target. A request without keyed or secret headers is
    /// cached per event loop: by its method and target when it has no body, and with its
    /// Content-Type and body bytes when the body is small (`ReplayTargetCache.bodyLimit`); the
    /// others are keyed each time.
    private func replayTarget(head: HTTPRequestHead, body: ByteBuffer?, cache: NIOLoopBoundBox<ReplayTargetCache>) throws -> CachedTarget {
        let method = try ProxyRequestBuilder.method(head)
        let keyer = self.keyer
        let operationName = keyer.graphQLOperationName(of: head)
        if !keyer.carriesKeyingHeaders(head) {
            guard let body, body.readableBytes > 0 else {
                return try cachedTarget(method: method, uri: head.uri, operationName: operationName, cache: cache)
            }
            if body.readableBytes <= ReplayTargetCache.bodyLimit {
                return try cachedTarget(method: method, uri: head.uri, operationName: operationName, body: body, head: head, cache: cache)
            }
        }
        let secretHeaders = keyer.secretHeaders(of: head)
        let keyed = keyer.keyedFields(of: head)
        let secretsOccur = keyer.secretsOccur(in: head.uri, secretHeaders: secretHeaders)
        guard keyed != nil || (body?.readableBytes ?? 0) > 0 || secretsOccur else {
            return try cachedTarget(method: method, uri: head.uri, operationName: operationName, cache: cache)
        }
        let key = keyer.key(
            method: method, target: try requestBuilder.upstreamTarget(head.uri), contentType: head.headers.first(name: "content-type"),
            body: body.map { Data($0.readableBytesView) }, secretHeaders: secretHeaders, keyedFields: keyed ?? [:],
            graphQLOperationName: operationName
        )
        let logTarget = keyer.redactedTarget(head.uri, secretHeaders: secretsOccur ? secretHeaders : [:])
        return CachedTarget(key: key, slot: session.index.slot(for: key.rawValue), logTarget: logTarget, keepsKey: true)
    }

    /// Test suites send the same bodies again and again (a GraphQL operation with the same
    /// variables): a request with a body and no keyed or secret headers is a pure function of
    /// its method, target, Content-Type, `X-APOLLO-OPERATION-NAME` and body bytes (the keyer's
    /// rules and learned secrets never change while a replay-only proxy runs), so its key is
    /// kept per event loop under exactly those, and a repeat costs a hash of its body.
    private func cachedTarget(
        method: WellPlateCore.HTTPMethod, uri: String, operationName: String?, body: ByteBuffer, head: HTTPRequestHead,
        cache: NIOLoopBoundBox<ReplayTargetCache>
    ) throws(ProxyRequestError) -> CachedTarget {
        let contentType = head.headers.first(name: "content-type")
        let cacheKey = CachedTarget.BodyKey(method: method, uri: uri, contentType: contentType, operationName: operationName, body: body)
        if let cached = cache.value[cacheKey] { return cached }
        let key = keyer.key(
            method: method, target: try requestBuilder.upstreamTarget(uri), contentType: contentType, body: Data(body.readableBytesView),
            graphQLOperationName: operationName)
        // Its whole key: the canonical body explains a miss better than the key text.
        let cached = CachedTarget(key: key, slot: session.index.slot(for: key.rawValue), logTarget: keyer.redactedTarget(uri), keepsKey: true)
        cache.value.insert(cached, for: cacheKey)
        return cached
    }

    /// Clients repeat the same few requests; their keys, index slots and log paths are kept per
    /// event loop (`ReplayTargetCache`, no lock), so normalization, redaction and hashing the key
    /// run once per distinct target on each loop, whichever connection asks.
    private func cachedTarget(
        method: WellPlateCore.HTTPMethod, uri: String, operationName: String?, cache: NIOLoopBoundBox<ReplayTargetCache>
    ) throws(ProxyRequestError)
        -> CachedTarget
    {
        let cacheKey = CachedTarget.Key(method: method, uri: uri, operationName: operationName)
        if let cached = cache.value[cacheKey] { return cached }
        let key = keyer.key(
            method: method, target: try requestBuilder.upstreamTarget(uri), contentType: nil, body: nil, graphQLOperationName: operationName)
        // A GraphQL GET keeps its key: its variables, not in the key text, explain a miss.
        let cached = CachedTarget(key: key, slot: session.index.slot(for: key.rawValue), logTarget: keyer.redactedTarget(uri), keepsKey: key.graphQL != nil)
        cache.value.insert(cached, for: cacheKey)
        return cached
    }
}
