import NIOCore
import NIOHTTP1
import Synchronization

/// Serves the requests of one connection, one after another, until either side closes it.
struct HTTPConnection {
    static let maxBodySize = 8 * 1024 * 1024

    let channel: HTTPConnectionChannel
    let router: Router
    let log: RequestLog
    /// Whether shutdown has begun (asked after every response).
    let isShuttingDown: @Sendable () -> Bool

    /// How long a connection may stay idle after its last answer once shutdown has begun: the
    /// quiesce event closes it, this only backs it up. A request pipelined behind that answer has
    /// been read already and starts at once, well within it.
    static let idleAfterShutdown = TimeAmount.seconds(5)

    /// Never throws: one connection's failure must not stop the server.
    func run() async {
        let remote = channel.channel.remoteAddress?.description ?? "unknown peer"
        let busy = Busy()
        do {
            try await channel.executeThenClose { inbound, outbound in
                var pending: PendingRequest?
                for try await part in inbound {
                    switch part {
                    case .head(let head):
                        busy.flag.withLock { $0 = true }
                        pending = PendingRequest(head: head)
                    case .body(let chunk):
                        pending?.append(chunk)
                    case .end:
                        guard let request = pending.take() else { continue }
                        // During shutdown the connection is not closed here but by
                        // `HTTPServerPipelineHandler` on the quiesce event: it alone knows whether
                        // a pipelined request has already been read (and must be answered) or
                        // not. Closing here after the response in flight lost such a request.
                        let keepAlive = try await respond(to: request, outbound: outbound)
                        busy.flag.withLock { $0 = false }
                        if !keepAlive { return }
                        if isShuttingDown() { closeIfStillIdle(busy) }
                    }
                }
            }
        } catch {
            log.connectionError(error, remote: remote)
        }
    }

    private func closeIfStillIdle(_ busy: Busy) {
        let channel = self.channel.channel
        channel.eventLoop.scheduleTask(in: Self.idleAfterShutdown) {
            if !busy.flag.withLock({ $0 }) { channel.close(promise: nil) }
        }
    }

    /// Answers one request; returns whether the connection stays open.
    private func respond(to pending: PendingRequest, outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>) async throws -> Bool {
        let started = ContinuousClock.now
        let head = pending.head
        let response: Response
        if pending.isTooLarge {
            response = .error(
                APIFailure(
                    status: .payloadTooLarge,
                    code: "payload_too_large",
                    message: "Request body is larger than \(Self.maxBodySize) bytes (8 MiB); send a smaller body"
                )
            )
        } else {
            response = await router.respond(to: Request(head: head, body: pending.body))
        }
        // An oversized body was read and dropped; closing keeps the next request from paying for it.
        let keepAlive = head.isKeepAlive && !pending.isTooLarge
        let parts = ResponseFraming.parts(for: response, answering: head, keepAlive: keepAlive)
        try await outbound.write(contentsOf: parts)
        log.request(head, status: response.status, bodyBytes: response.body?.readableBytes ?? 0, duration: .now - started)
        return keepAlive
    }
}

/// Whether a connection is between a request's head and its answer.
final class Busy: Sendable {
    let flag = Mutex(false)
}

/// A request whose body is still arriving. Bytes past the limit are counted but not kept.
struct PendingRequest {
    let head: HTTPRequestHead
    private(set) var body: [UInt8] = []
    private(set) var isTooLarge = false

    init(head: HTTPRequestHead) {
        self.head = head
    }

    mutating func append(_ chunk: ByteBuffer) {
        guard !isTooLarge else { return }
        if body.count + chunk.readableBytes > HTTPConnection.maxBodySize {
            isTooLarge = true
            body = []
        } else {
            body.append(contentsOf: chunk.readableBytesView)
        }
    }
}

extension Optional {
    /// Returns the value and leaves `nil` behind.
    mutating func take() -> Wrapped? {
        defer { self = nil }
        return self
    }
}
