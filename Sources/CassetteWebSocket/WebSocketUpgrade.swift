import CassetteKernel
import CassetteServing
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOWebSocket
import Synchronization
import WellPlateCore
import WellPlateNetworking

/// One connection's WebSocket upgrader: `shouldUpgrade` decides (and, to record, opens the
/// upstream WebSocket first, so the client's `101` carries the upstream's subprotocol, and a
/// refusal leaves the request to be answered over HTTP); `upgradePipelineHandler` then puts the
/// replay or the relay on the switched connection.
package struct WebSocketUpgrade: Sendable {
    package let service: WebSocketService

    /// What `shouldUpgrade` settled, for `upgradePipelineHandler` on the same connection, with
    /// the service that took it (a session's, for `X-Cassette-Session` on the main port).
    private enum Settled: Sendable {
        /// With what the client's offer of permessage-deflate was answered.
        case replay(MultiplexedReplay, WebSocketService, PerMessageDeflate?)
        /// With what the upstream agreed of the client's permessage-deflate offers.
        case relay(Channel, NIOLoopBound<WebSocketRelay>, ConversationRecorder?, JournalConversation?, WebSocketService, PerMessageDeflate?)
    }

    /// One connection's `Settled`: written when the upstream answers (in a task), read on the loop.
    private final class SettledBox: Sendable {
        package let value = Mutex<Settled?>(nil)
    }

    package func upgrader() -> NIOWebSocketServerUpgrader {
        let settled = SettledBox()
        let listenerService = self.service
        let options = listenerService.served.settings.webSocket
        return NIOWebSocketServerUpgrader(
            maxFrameSize: min(options.maxMessageSize, Int(UInt32.max)), automaticErrorHandling: false,
            shouldUpgrade: { channel, head in
                guard let service = listenerService.serving(head, on: channel.eventLoop) else { return channel.eventLoop.makeSucceededFuture(nil) }
                switch service.plan(for: head) {
                case .decline:
                    return channel.eventLoop.makeSucceededFuture(nil)
                case .replay(let replay):
                    // Agreed afresh with each client: recorded payloads are stored inflated.
                    let deflate = PerMessageDeflate.accepting(head.headers)
                    settled.value.withLock { $0 = .replay(replay, service, deflate) }
                    var headers = HTTPHeaders()
                    if let subprotocol = replay.conversation.subprotocol { headers.add(name: "Sec-WebSocket-Protocol", value: subprotocol) }
                    if let deflate { headers.add(name: "Sec-WebSocket-Extensions", value: deflate.responseHeader) }
                    return channel.eventLoop.makeSucceededFuture(headers)
                case .relay(let records):
                    let promise = channel.eventLoop.makePromise(of: HTTPHeaders?.self)
                    let eventLoop = channel.eventLoop
                    promise.completeWithTask {
                        try await Self.openUpstream(service: service, head: head, records: records, eventLoop: eventLoop, settled: settled)
                    }
                    // An upstream that cannot be reached: the request goes on as HTTP and gets its 502.
                    // Why goes to the log: the HTTP answer is libcurl's, whose TLS is not this one.
                    return promise.futureResult.flatMapErrorThrowing { error in
                        service.served.log.warn(
                            "WebSocket \(service.logTarget(of: head)): the upstream WebSocket could not be opened, so the handshake goes on as an HTTP request: \(error)"
                        )
                        return nil
                    }
                }
            },
            upgradePipelineHandler: { channel, head in
                channel.eventLoop.makeCompletedFuture {
                    switch settled.value.withLock({ $0 }) {
                    case .replay(let replay, let service, let deflate):
                        let conversation = replay.conversation
                        let logTarget = service.logTarget(of: head)
                        service.served.log.warn(
                            service.served.log.labelled("GET \(logTarget) 101 WebSocket replayed (\(conversation.messages.count) messages recorded)"))
                        let track = service.newJournalConversation()
                        if let track { service.addToJournal(track, head: head, source: .hit, started: .now()) }
                        let parts = ConversationReplayHandler.Parts(
                            keyer: service.keyer, session: service.served.session, options: options, log: service.served.log, logTarget: logTarget,
                            secrets: service.keyer.redactor.secretValues(headers: service.keyer.secretHeaders(of: head)),
                            journal: service.served.journal, track: track, key: conversation.key, deflate: deflate)
                        try channel.pipeline.syncOperations.addHandler(try ConversationReplayHandler(replay, parts: parts))
                    case .relay(let upstream, let upstreamRelay, let recorder, let track, let service, let deflate):
                        let relay = WebSocketRelay(
                            side: .client, recorder: recorder, track: track, maxMessageSize: options.maxMessageSize, log: service.served.log,
                            logTarget: service.logTarget(of: head), inflater: try deflate.map { _ in try MessageInflater() })
                        try channel.pipeline.syncOperations.addHandler(relay)
                        relay.attach(upstream)
                        upstreamRelay.value.attach(channel)
                        service.served.log.warn(
                            service.served.log.labelled("GET \(service.logTarget(of: head)) 101 WebSocket \(recorder == nil ? "passed through" : "recording")"))
                    case nil:
                        channel.close(promise: nil)
                    }
                }
            })
    }

    /// Dials the upstream for `head`; the client's `101` headers when it switched, `nil` when it refused.
    private static func openUpstream(
        service: WebSocketService, head: HTTPRequestHead, records: Bool, eventLoop: any EventLoop, settled: SettledBox
    ) async throws -> HTTPHeaders? {
        let request = try service.served.requestBuilder.transportRequest(head: head, body: nil)
        let redacted = service.keyer.redactedWithKey(request)
        var headers = HTTPHeaders()
        for field in request.headerFields {
            // The upgrader writes its own key, version, Upgrade and Connection; of the extensions,
            // only the permessage-deflate offers go on (below), which the proxy can inflate.
            switch field.name.canonicalName {
            case "sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions", "host", "upgrade", "connection": continue
            default: headers.add(name: field.name.rawName, value: field.value)
            }
        }
        if let offers = PerMessageDeflate.forwardedOffers(head.headers) { headers.add(name: "Sec-WebSocket-Extensions", value: offers) }
        var recorder: ConversationRecorder?
        if records {
            let conversation = Conversation(
                cassette: service.served.session.options.cassette, url: redacted.redacted.url.absoluteString,
                key: service.key(of: head) ?? redacted.key.rawValue,
                requestHeaders: redacted.redacted.headerFields, subprotocol: nil, extensions: nil)
            recorder = ConversationRecorder(
                store: service.served.session.store, conversation: conversation, secrets: redacted.secrets, keyer: service.keyer, log: service.served.log,
                writers: service.served.writers)
        }
        let started = NIODeadline.now()
        let track = service.newJournalConversation()
        let outcome = try await UpstreamWebSocket.connect(
            url: request.url, headers: headers, eventLoop: eventLoop, tls: service.served.settings.tls,
            maxMessageSize: service.served.settings.webSocket.maxMessageSize, recorder: recorder, track: track, log: service.served.log,
            logTarget: service.logTarget(of: head))
        switch outcome {
        case .refused:
            recorder?.abandon()
            return nil
        case .upgraded(let channel, let relay, let response, let deflate):
            let subprotocol = response.headers.first(name: "sec-websocket-protocol")
            let extensions = response.headers.first(name: "sec-websocket-extensions")
            recorder?.start(subprotocol: subprotocol, extensions: deflate == nil ? nil : extensions)
            if records { service.served.session.countConversationRecorded() }
            if let track { service.addToJournal(track, head: head, source: records ? .recorded : .passthrough, started: started) }
            settled.value.withLock { $0 = .relay(channel, relay, recorder, track, service, deflate) }
            var headers = HTTPHeaders()
            if let subprotocol { headers.add(name: "Sec-WebSocket-Protocol", value: subprotocol) }
            // The client gets what the upstream agreed to, so frames pass between them as they are.
            if deflate != nil, let extensions { headers.add(name: "Sec-WebSocket-Extensions", value: extensions) }
            return headers
        }
    }
}
