import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization

/// Clients that drive echo conversations as fast as the server answers: each sends `message N`,
/// waits for the answer, and sends the next, `turns` times per connection, then closes and opens
/// a new connection, until the time is up. Every round trip's duration is kept for percentiles.
struct WebSocketLoad: Sendable {
    let url: URL
    let turns: Int

    struct Result {
        var messages: Int
        var seconds: Double
        var connections: Int
        var roundTrips: [Double]

        var json: String {
            let sorted = roundTrips.sorted()
            func percentile(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
            let perSecond = seconds > 0 ? Double(messages) / seconds : 0
            return String(
                format: #"{"connections": %d, "messages": %d, "seconds": %.3f, "per_second": %.1f, "p50_ms": %.4f, "p99_ms": %.4f}"#, connections, messages,
                seconds, perSecond, percentile(0.5) * 1000, percentile(0.99) * 1000)
        }
    }

    /// `connections` clients for `seconds` (0: one connection of `turns` messages).
    func run(connections: Int, seconds: Double) async throws -> Result {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
        let started = ContinuousClock.now
        let deadline = seconds > 0 ? started + .milliseconds(Int(seconds * 1000)) : nil
        let samples = try await withThrowingTaskGroup(of: [Double].self) { tasks in
            for _ in 0..<max(1, connections) {
                tasks.addTask {
                    var samples: [Double] = []
                    repeat {
                        samples += try await conversation(group: group, deadline: deadline)
                    } while deadline.map({ ContinuousClock.now < $0 }) ?? false
                    return samples
                }
            }
            var all: [Double] = []
            for try await part in tasks { all += part }
            return all
        }
        let elapsed = ContinuousClock.now - started
        try await group.shutdownGracefully()
        let secondsTaken = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Result(messages: samples.count, seconds: secondsTaken, connections: connections, roundTrips: samples)
    }

    /// One connection: the upgrade, up to `turns` round trips (fewer once `deadline` passes), the close.
    private func conversation(group: MultiThreadedEventLoopGroup, deadline: ContinuousClock.Instant?) async throws -> [Double] {
        let host = url.host ?? "127.0.0.1"
        let port = url.port ?? 80
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "\(host):\(port)")
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: url.path.isEmpty ? "/" : url.path, headers: headers)
        let turns = turns
        let upgraded: EventLoopFuture<Upgraded> = try await ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOTypedWebSocketClientUpgrader<Upgraded> { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            let promise = channel.eventLoop.makePromise(of: [Double].self)
                            let taker = TurnTaker(turns: turns, deadline: deadline, done: promise)
                            try channel.pipeline.syncOperations.addHandler(taker)
                            return Upgraded(taker: NIOLoopBound(taker, eventLoop: channel.eventLoop), done: promise.futureResult)
                        }
                    }
                    let configuration = NIOTypedHTTPClientUpgradeConfiguration<Upgraded>(
                        upgradeRequestHead: head, upgraders: [upgrader],
                        notUpgradingCompletionHandler: { channel in
                            channel.eventLoop.makeFailedFuture(LoadError.notUpgraded)
                        })
                    // A server may write its first frame right behind its `101`: those bytes go to
                    // the WebSocket handlers, not away with the HTTP decoder (NIO's default drops them).
                    var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
                    pipeline.leftOverBytesStrategy = .forwardBytes
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: pipeline)
                }
            }
        // The first message goes once the upgrade handler is gone: written from inside the
        // upgrade, it would wait behind the HTTP handlers.
        let result = try await upgraded.get()
        result.taker.eventLoop.execute { result.taker.value.start() }
        return try await result.done.get()
    }
}

/// A connection whose upgrade completed: its turn taker, and its round trips once it closed.
struct Upgraded: Sendable {
    let taker: NIOLoopBound<TurnTaker>
    let done: EventLoopFuture<[Double]>
}

enum LoadError: Error {
    case notUpgraded
    case unexpectedClose
}

/// One connection's turns, on its event loop: send, wait for the echo, time it, send the next.
final class TurnTaker: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let turns: Int
    private let deadline: ContinuousClock.Instant?
    private let done: EventLoopPromise<[Double]>
    private var sent = 0
    private var sentAt = ContinuousClock.now
    private var samples: [Double] = []
    private var closing = false
    private var context: ChannelHandlerContext?

    init(turns: Int, deadline: ContinuousClock.Instant?, done: EventLoopPromise<[Double]>) {
        self.turns = turns
        self.deadline = deadline
        self.done = done
        samples.reserveCapacity(turns)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    /// Sends the first message.
    func start() {
        guard let context else { return }
        send(context: context)
    }

    private func send(context: ChannelHandlerContext) {
        guard sent < turns, deadline.map({ ContinuousClock.now < $0 }) ?? true else {
            closing = true
            var data = context.channel.allocator.buffer(capacity: 2)
            data.writeInteger(UInt16(1000))
            context.writeAndFlush(Self.wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data)), promise: nil)
            return
        }
        sent += 1
        sentAt = .now
        let data = context.channel.allocator.buffer(string: "message \(sent)")
        context.writeAndFlush(Self.wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: data)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = Self.unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .binary:
            let elapsed = ContinuousClock.now - sentAt
            samples.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            send(context: context)
        case .connectionClose:
            if closing {
                done.succeed(samples)
            } else {
                done.fail(LoadError.unexpectedClose)
            }
            context.close(promise: nil)
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        // A server that closed the TCP connection without a close frame.
        done.fail(LoadError.unexpectedClose)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        done.fail(error)
        context.close(promise: nil)
    }
}
