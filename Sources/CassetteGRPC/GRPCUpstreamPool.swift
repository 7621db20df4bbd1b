import NIOCore
import NIOHTTP2
import Synchronization

/// The HTTP/2 connections to one upstream (scheme, host, port and TLS settings) that the gRPC
/// calls a proxy relays share, as a gRPC client's channel does: each call is a stream on an open
/// connection, so a remote TLS API costs one handshake per connection, not per call. A connection
/// takes calls up to the peer's SETTINGS_MAX_CONCURRENT_STREAMS (another is opened when all are
/// full), none after the peer's GOAWAY (the streams it took finish on it; the next call opens a
/// new connection, so a restarted upstream is picked up), and it is closed once idle for
/// `idleTimeout` or when the proxy stops. A connection that dies leaves the pool; its calls in
/// flight end as their streams do. The bookkeeping is behind a lock, since calls come from every
/// event loop; a new connection opens on the loop of the call that needs it.
final class GRPCUpstreamPool: Sendable {
    let upstream: GRPCUpstreamConnection
    private let idleTimeout: TimeAmount
    private let connectTimeout: TimeAmount
    private let state = Mutex(State())

    /// Until the peer's first SETTINGS names a limit, as RFC 9113 §6.5.2 recommends at least.
    static let assumedMaxStreams = 100

    init(upstream: GRPCUpstreamConnection, idleTimeout: TimeAmount = .minutes(5), connectTimeout: TimeAmount = .seconds(10)) {
        self.upstream = upstream
        self.idleTimeout = idleTimeout
        self.connectTimeout = connectTimeout
    }

    /// A stream for one call on a connection with room, `initializer` setting up its pipeline;
    /// its slot is given back when the stream closes. Fails when the upstream cannot be reached,
    /// or the proxy is stopping.
    func stream(on loop: any EventLoop, _ initializer: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>) -> EventLoopFuture<any Channel> {
        let leased = loop.makePromise(of: Lease.self)
        run(
            state.withLock { state in
                guard !state.shutDown else {
                    return [{ leased.fail(GRPCUpstreamPoolError("the proxy is stopping")) }]
                }
                state.waiters.append(Waiter(loop: loop, promise: leased))
                return dispatch(&state)
            })
        return leased.futureResult.flatMap { lease in
            let opened = lease.channel.eventLoop.makePromise(of: (any Channel).self)
            lease.channel.eventLoop.execute {
                do {
                    let multiplexer = try lease.channel.pipeline.syncOperations.handler(type: NIOHTTP2Handler.self).syncMultiplexer()
                    multiplexer.createStreamChannel(promise: opened) { initializer($0) }
                } catch {
                    opened.fail(error)
                }
            }
            return opened.futureResult.map { stream in
                stream.closeFuture.whenComplete { _ in self.release(lease.id) }
                return stream
            }.flatMapErrorThrowing { error in
                self.release(lease.id)
                throw error
            }.hop(to: loop)
        }
    }

    /// Closes every connection (the calls on them have ended: the listeners drained first) and
    /// fails the calls still waiting for one; no timer is left behind.
    func shutdown() async {
        let closing = state.withLock { state in
            state.shutDown = true
            let waiters = state.waiters
            state.waiters.removeAll()
            var futures: [EventLoopFuture<Void>] = []
            for entry in state.connections.values {
                entry.idle?.cancel()
                futures.append(
                    entry.connected.flatMap { channel in
                        channel.close(promise: nil)
                        return channel.closeFuture
                    }.recover { _ in })
            }
            // One still connecting closes as it connects (`connected`).
            state.connections.removeAll()
            return (waiters, futures)
        }
        for waiter in closing.0 { waiter.promise.fail(GRPCUpstreamPoolError("the proxy is stopping")) }
        for future in closing.1 { try? await future.get() }
    }

    /// How many connections are open or opening, for the tests and the log.
    var connectionCount: Int { state.withLock { $0.connections.count } }

    // MARK: - Events from a connection (`GRPCPoolWatcher`), on its event loop

    /// The peer's SETTINGS: the first makes the connection ready (an HTTP/2 server has answered).
    func settingsReceived(_ id: Int, maxConcurrentStreams: Int?) {
        run(
            state.withLock { state in
                guard var entry = state.connections[id] else { return [] }
                if let maxConcurrentStreams {
                    entry.maxStreams = maxConcurrentStreams
                } else if entry.maxStreams == nil {
                    entry.maxStreams = Self.assumedMaxStreams
                }
                state.connections[id] = entry
                return dispatch(&state)
            })
    }

    /// GOAWAY: no new call goes there; the streams it took finish, then the connection closes.
    func goAwayReceived(_ id: Int) {
        run(
            state.withLock { state in
                guard var entry = state.connections[id], !entry.goingAway else { return [] }
                entry.goingAway = true
                state.holdsOpening = false
                entry.idle?.cancel()
                entry.idle = nil
                state.connections[id] = entry
                let closes = entry.streams == 0 ? [closing(entry)] : []
                return closes + dispatch(&state)
            })
    }

    /// The connection closed (the upstream went away, GOAWAY drained, idle, or the proxy stops).
    func closed(_ id: Int, error: (any Error)?) {
        run(
            state.withLock { state in
                guard let entry = state.connections.removeValue(forKey: id) else { return [] }
                entry.idle?.cancel()
                if entry.maxStreams != nil { state.holdsOpening = false }
                guard entry.maxStreams == nil else { return dispatch(&state) }
                // It closed before it was ready: calls waiting for it fail, unless another is opening.
                return failWaitersUnlessOpening(&state, error ?? GRPCUpstreamPoolError("the upstream closed the connection before HTTP/2 started"))
            })
    }

    // MARK: - Bookkeeping

    private struct State {
        var connections: [Int: Entry] = [:]
        var nextID = 0
        var waiters: [Waiter] = []
        var shutDown = false
        /// A new connection failed while others were open and full (a server that limits
        /// connections): waiting calls take the next free slot instead of reconnecting in a loop.
        var holdsOpening = false
    }

    private struct Entry {
        let loop: any EventLoop
        let connected: EventLoopFuture<any Channel>
        var channel: (any Channel)?
        /// `nil` until the peer's first SETTINGS.
        var maxStreams: Int?
        var streams = 0
        var goingAway = false
        var idle: Scheduled<Void>?

        var isReady: Bool { channel != nil && maxStreams != nil && !goingAway }
        var hasRoom: Bool { isReady && streams < (maxStreams ?? 0) }
    }

    private struct Waiter {
        let loop: any EventLoop
        let promise: EventLoopPromise<Lease>
    }

    private struct Lease {
        let id: Int
        let channel: any Channel
    }

    private typealias Actions = [@Sendable () -> Void]

    private func run(_ actions: Actions) {
        for action in actions { action() }
    }

    /// Gives waiting calls a slot on a connection with room (one on their own loop first, so
    /// frames need not cross threads), and opens a connection when some wait and none is opening.
    private func dispatch(_ state: inout State) -> Actions {
        var actions: Actions = []
        while let waiter = state.waiters.first {
            let candidates = state.connections.filter { $0.value.hasRoom }
            guard let (id, entry) = candidates.first(where: { $0.value.loop === waiter.loop }) ?? candidates.min(by: { $0.key < $1.key }),
                let channel = entry.channel
            else { break }
            state.waiters.removeFirst()
            state.connections[id]?.streams += 1
            state.connections[id]?.idle?.cancel()
            state.connections[id]?.idle = nil
            let lease = Lease(id: id, channel: channel)
            actions.append { waiter.promise.succeed(lease) }
        }
        let opening = state.connections.values.contains { $0.maxStreams == nil && !$0.goingAway }
        if let waiter = state.waiters.first, !opening, !state.shutDown, !state.holdsOpening {
            actions += open(&state, on: waiter.loop)
        }
        return actions
    }

    private func open(_ state: inout State, on loop: any EventLoop) -> Actions {
        let id = state.nextID
        state.nextID += 1
        let connected = loop.makePromise(of: (any Channel).self)
        state.connections[id] = Entry(loop: loop, connected: connected.futureResult)
        let (upstream, timeout) = (self.upstream, connectTimeout)
        return [
            {
                upstream.connect(on: loop, timeout: timeout) { operations in
                    try operations.addHandler(
                        GRPCPoolWatcher(
                            settingsReceived: { self.settingsReceived(id, maxConcurrentStreams: $0) }, goAwayReceived: { self.goAwayReceived(id) }))
                }.cascade(to: connected)
                connected.futureResult.whenComplete { result in self.connected(id, result, timeout: timeout) }
            }
        ]
    }

    private func connected(_ id: Int, _ result: Result<any Channel, any Error>, timeout: TimeAmount) {
        switch result {
        case .failure(let error):
            run(
                state.withLock { state in
                    state.connections.removeValue(forKey: id)
                    return failWaitersUnlessOpening(&state, error)
                })
        case .success(let channel):
            channel.closeFuture.whenComplete { _ in self.closed(id, error: nil) }
            // A server that accepts and never speaks HTTP/2 does not keep the calls waiting.
            let settingsTimeout = channel.eventLoop.scheduleTask(in: timeout) {
                let silent = self.state.withLock { $0.connections[id].map { $0.maxStreams == nil } ?? false }
                if silent { channel.close(promise: nil) }
            }
            channel.closeFuture.whenComplete { _ in settingsTimeout.cancel() }
            run(
                state.withLock { state in
                    guard !state.shutDown, state.connections[id] != nil else { return [{ channel.close(promise: nil) }] }
                    state.connections[id]?.channel = channel
                    return dispatch(&state)
                })
        }
    }

    private func failWaitersUnlessOpening(_ state: inout State, _ error: any Error) -> Actions {
        if state.connections.values.contains(where: { $0.maxStreams == nil && !$0.goingAway }) { return [] }
        if state.connections.values.contains(where: \.isReady) {
            state.holdsOpening = true
            return dispatch(&state)
        }
        let waiters = state.waiters
        state.waiters.removeAll()
        return waiters.map { waiter in { waiter.promise.fail(error) } }
    }

    /// A call's stream closed: its slot is free; an idle connection closes after `idleTimeout`,
    /// one that got GOAWAY at once.
    private func release(_ id: Int) {
        run(
            state.withLock { state in
                guard var entry = state.connections[id] else { return [] }
                entry.streams -= 1
                var actions: Actions = []
                if entry.streams == 0 {
                    if entry.goingAway || state.shutDown {
                        actions.append(closing(entry))
                    } else if let channel = entry.channel {
                        entry.idle = channel.eventLoop.scheduleTask(in: idleTimeout) { self.idled(id) }
                    }
                }
                state.connections[id] = entry
                actions += dispatch(&state)
                // The calls that waited have their slots: the next that finds all full may open a connection again.
                if state.waiters.isEmpty { state.holdsOpening = false }
                return actions
            })
    }

    private func idled(_ id: Int) {
        run(
            state.withLock { state in
                guard var entry = state.connections[id], entry.streams == 0, !entry.goingAway else { return [] }
                // Taken out of service under the lock, so no call is given it meanwhile.
                entry.goingAway = true
                entry.idle = nil
                state.connections[id] = entry
                return [closing(entry)]
            })
    }

    private func closing(_ entry: Entry) -> @Sendable () -> Void {
        let channel = entry.channel
        return { channel?.close(promise: nil) }
    }
}

/// Why a call got no upstream connection from the pool.
struct GRPCUpstreamPoolError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
