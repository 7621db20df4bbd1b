import CassetteKernel
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
///
/// A class, made once per listener: the hot path reaches the keyer and the answers through one
/// reference instead of copying them per request (the keyer's rules and redactor are a few dozen
/// references).
package final class ProxyReplayer: Sendable {
    package let session: CassetteSession
    package let answers: PreparedAnswers
    package let requestBuilder: ProxyRequestBuilder
    package let keyer: ReplayKeyer
    /// The header names that keep a request off the plain path (`isPlain`), lowercased, as bytes;
    /// `unplainLengths[n]`: whether one has `n` bytes, so most names are passed over by length.
    private let unplainNames: [[UInt8]]
    private let unplainLengths: [Bool]

    package init(session: CassetteSession, answers: PreparedAnswers, requestBuilder: ProxyRequestBuilder) {
        self.session = session
        self.answers = answers
        self.requestBuilder = requestBuilder
        keyer = session.keyer
        // With the Apollo header a request's key may name its operation (`graphQLOperationName`).
        let framing = ["content-length", "transfer-encoding", "expect", "upgrade", SessionHeader.name, GraphQLOperation.operationNameHeader]
        unplainNames = (framing + keyer.keyingHeaderNames).map { Array($0.lowercased().utf8) }
        var lengths = [Bool](repeating: false, count: (unplainNames.map(\.count).max() ?? 0) + 1)
        for name in unplainNames { lengths[name.count] = true }
        unplainLengths = lengths
    }

    /// Whether a request with `head` is plain: no body (no `Content-Length` or
    /// `Transfer-Encoding`), nothing asked before the answer (`Expect`, `Upgrade`), no session,
    /// no `X-APOLLO-OPERATION-NAME`, no keyed or secret header (nor Basic credentials under another name), not for the proxy
    /// itself. Such a request is keyed by its method and target alone (`ReplayTargetCache`) and
    /// needs no state between its head and its end: `HTTPConnectionHandler` answers it at its end without
    /// the state machine or routing. One pass over the headers, without allocating.
    package func isPlain(_ head: HTTPRequestHead) -> Bool {
        guard !head.uri.hasPrefix(ControlNames.prefix) else { return false }
        let checksBasic = keyer.redactor.isEnabled
        for header in head.headers {
            let name = header.name.utf8
            if name.count < unplainLengths.count && unplainLengths[name.count] {
                for unplain in unplainNames where unplain.count == name.count && Self.equalsLowercased(name, unplain) { return false }
            }
            // Basic credentials start with `Basic` (after spaces): other values end at their first byte.
            if checksBasic, let first = header.value.utf8.first, first | 0x20 == UInt8(ascii: "b") || first == UInt8(ascii: " "),
                Redactor.isBasicCredential(header.value)
            {
                return false
            }
        }
        return true
    }

    private static func equalsLowercased(_ name: String.UTF8View, _ lowercased: [UInt8]) -> Bool {
        var index = 0
        for byte in name {
            // ASCII letters only: any other byte that folds onto one only sends a request the long way.
            guard byte | 0x20 == lowercased[index] || byte == lowercased[index] else { return false }
            index += 1
        }
        return true
    }

    /// The answer to one request and its target: as logged, and its key (for a session's journal).
    /// `cache`: the targets this event loop has keyed before.
    package func answer(
        head: HTTPRequestHead, body: ByteBuffer?, cache: NIOLoopBoundBox<ReplayTargetCache>, own: OwnAddress? = nil
    ) throws -> (ProxyAnswer, target: CachedTarget) {
        let (pick, target) = try pick(head: head, body: body, cache: cache, own: own)
        return (echoingAnswer(for: pick, head: head) ?? answers.answer(for: pick), target)
    }

    /// The answer for a pick whose recording repeats secrets of its request that this request
    /// carries too (a secret header or cookie): made for it, with its own values where the
    /// recording holds `REDACTED` (`Interaction.echoingSecrets(of:)`). `nil` for every other
    /// pick, which is answered as prepared. Only requests off the plain path carry secrets.
    package func echoingAnswer(for pick: ReplayIndex.Pick, head: HTTPRequestHead) -> ProxyAnswer? {
        let recording: Interaction
        switch pick {
        case .loaded(let position):
            guard session.index.loadedRecordingEchoesSecrets(at: position) else { return nil }
            recording = session.index.loadedRecording(at: position)
        case .recorded(let added): recording = added
        }
        guard !recording.secretEchoes.isEmpty, let echoed = recording.echoingSecrets(of: keyer.secretHeaders(of: head)) else { return nil }
        return answers.answer(made: echoed)
    }

    /// The recording one request takes and its target; a miss throws, explained.
    /// `plain`: `isPlain(head)` holds, so the request is keyed by its method and target alone.
    /// `own`: the address of the listener it came in on, keyed as its placeholder (`OwnAddress`);
    /// asked only when the request is keyed, not for a target this event loop keyed before.
    package func pick(
        head: HTTPRequestHead, body: ByteBuffer?, plain: Bool = false, cache: NIOLoopBoundBox<ReplayTargetCache>,
        own: @autoclosure () -> OwnAddress? = nil
    ) throws -> (
        ReplayIndex.Pick, target: CachedTarget
    ) {
        let target =
            try plain
            ? cachedTarget(method: ProxyRequestBuilder.method(head), uri: head.uri, operationName: nil, cache: cache, own: own)
            : replayTarget(head: head, body: body, cache: cache, own: own)
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
        return (pick, target)
    }

    /// The request's key, slot and log target. A request without keyed or secret headers is
    /// cached per event loop: by its method and target when it has no body, and with its
    /// Content-Type and body bytes when the body is small (`ReplayTargetCache.bodyLimit`); the
    /// others are keyed each time.
    private func replayTarget(
        head: HTTPRequestHead, body: ByteBuffer?, cache: NIOLoopBoundBox<ReplayTargetCache>, own: () -> OwnAddress?
    ) throws -> CachedTarget {
        let method = try ProxyRequestBuilder.method(head)
        let operationName = keyer.graphQLOperationName(of: head)
        if !keyer.carriesKeyingHeaders(head) {
            guard let body, body.readableBytes > 0 else {
                return try cachedTarget(method: method, uri: head.uri, operationName: operationName, cache: cache, own: own)
            }
            if body.readableBytes <= ReplayTargetCache.bodyLimit {
                return try cachedTarget(method: method, uri: head.uri, operationName: operationName, body: body, head: head, cache: cache, own: own)
            }
        }
        let secretHeaders = keyer.secretHeaders(of: head)
        let keyed = keyer.keyedFields(of: head)
        let secretsOccur = keyer.secretsOccur(in: head.uri, secretHeaders: secretHeaders)
        guard keyed != nil || (body?.readableBytes ?? 0) > 0 || secretsOccur else {
            return try cachedTarget(method: method, uri: head.uri, operationName: operationName, cache: cache, own: own)
        }
        let address = own()
        let bodyData = body.map { Data($0.readableBytesView) }
        let key = keyer.key(
            method: method, target: try requestBuilder.upstreamTarget(address?.placeholding(head.uri) ?? head.uri),
            contentType: head.headers.first(name: "content-type"), body: bodyData.map { address?.placeholding($0).map { Data($0) } ?? $0 },
            secretHeaders: secretHeaders, keyedFields: keyed.map { address?.placeholding($0) ?? $0 } ?? [:], graphQLOperationName: operationName
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
        cache: NIOLoopBoundBox<ReplayTargetCache>, own: () -> OwnAddress?
    ) throws(ProxyRequestError) -> CachedTarget {
        let contentType = head.headers.first(name: "content-type")
        let cacheKey = CachedTarget.BodyKey(method: method, uri: uri, contentType: contentType, operationName: operationName, body: body)
        if let cached = cache.value[cacheKey] { return cached }
        // Cached per listener and event loop: the listener's address is the same for every request.
        let address = own()
        let bodyData = Data(body.readableBytesView)
        let key = keyer.key(
            method: method, target: try requestBuilder.upstreamTarget(address?.placeholding(uri) ?? uri), contentType: contentType,
            body: address?.placeholding(bodyData).map { Data($0) } ?? bodyData, graphQLOperationName: operationName)
        // Its whole key: the canonical body explains a miss better than the key text.
        let cached = CachedTarget(key: key, slot: session.index.slot(for: key.rawValue), logTarget: keyer.redactedTarget(uri), keepsKey: true)
        cache.value.insert(cached, for: cacheKey)
        return cached
    }

    /// Clients repeat the same few requests; their keys, index slots and log paths are kept per
    /// event loop (`ReplayTargetCache`, no lock), so normalization, redaction and hashing the key
    /// run once per distinct target on each loop, whichever connection asks.
    private func cachedTarget(
        method: WellPlateCore.HTTPMethod, uri: String, operationName: String?, cache: NIOLoopBoundBox<ReplayTargetCache>, own: () -> OwnAddress?
    ) throws(ProxyRequestError)
        -> CachedTarget
    {
        let cacheKey = CachedTarget.Key(method: method, uri: uri, operationName: operationName)
        if let cached = cache.value[cacheKey] { return cached }
        let keyedURI = own()?.placeholding(uri) ?? uri
        let key = keyer.key(
            method: method, target: try requestBuilder.upstreamTarget(keyedURI), contentType: nil, body: nil, graphQLOperationName: operationName)
        // A GraphQL GET keeps its key: its variables, not in the key text, explain a miss.
        let cached = CachedTarget(key: key, slot: session.index.slot(for: key.rawValue), logTarget: keyer.redactedTarget(uri), keepsKey: key.graphQL != nil)
        cache.value.insert(cached, for: cacheKey)
        return cached
    }
}
