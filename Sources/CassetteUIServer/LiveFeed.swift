import CassetteKernel
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import WellPlateCore

/// Pushes each request the proxy answers to the pages following its Live view (Server-Sent
/// Events), and to a run's report. It must never slow serving:
/// - with nobody following, publishing is one atomic load;
/// - each event is encoded once, then appended to every page's own buffer under a short lock;
/// - a page's buffer is written by its own connection's event loop at most every
///   `flushInterval`, coalescing what came meanwhile into one write;
/// - a page that falls behind (its buffer past `bufferLimit`, or its connection not writable)
///   loses the newest updates, never holds a request back: the page is told how many it lost
///   (`event: dropped`);
/// - while every page's buffer is full (a proxy at full load fills one in well under
///   `flushInterval`), an event is not even made: publishing is then two atomic operations,
///   and the skipped events are counted against each page as dropped at its next write.
/// Misses are kept (the last `recentMisses`) so a page opened later still shows them.
package final class LiveFeed: AnswerFeed {
    package static let flushInterval = TimeAmount.milliseconds(100)
    package static let bufferLimit = 512
    package static let recentMisses = 50

    private struct Follower {
        package let channel: any Channel
        package var pending: [String] = []
        package var dropped = 0
        package var flushScheduled = false
        /// `skipped` when this page last counted it: what was skipped since is its loss too.
        package var skippedSeen: Int
    }

    private struct State {
        package var followers: [ObjectIdentifier: Follower] = [:]
        package var recent: [String] = []
        /// `cassette run --report`: every event, up to `collectLimit`.
        package var collected: [JSONValue]?
        package var collectLimit = 0
        package var collectDropped = 0
    }

    private let state = Mutex(State())
    /// Followers plus one while collecting: the hot path reads only this.
    private let watchers = Atomic<Int>(0)
    /// Followers whose buffer has room (kept under `state`'s lock, read without it).
    private let roomy = Atomic<Int>(0)
    private let collecting = Atomic<Bool>(false)
    /// Events not made because every follower's buffer was full.
    private let skipped = Atomic<Int>(0)

    package init() {}

    package func announce(
        method: NIOHTTP1.HTTPMethod, target: String, status: Int, tag: String, miss: ReportedMiss?, started: NIODeadline, session: String?
    ) {
        publish(isMiss: miss != nil) {
            LiveEvent(
                at: Date(), method: method.rawValue, target: target, status: status, tag: tag,
                durationMilliseconds: Double((NIODeadline.now() - started).nanoseconds) / 1_000_000, session: session, miss: miss?.miss)
        }
    }

    package func announceCall(path: String, grpcStatus: String, message: String?, tag: String, started: NIODeadline, session: String?) {
        publish(isMiss: tag == "miss") {
            var event = LiveEvent(
                at: Date(), method: "POST", target: path, status: 200, tag: tag,
                durationMilliseconds: Double((NIODeadline.now() - started).nanoseconds) / 1_000_000, session: session, miss: nil)
            event.grpc = LiveEvent.GRPCCall(status: grpcStatus, message: message)
            return event
        }
    }

    /// Publishes the event `make` describes; `make` runs only when someone follows or a miss
    /// must be kept.
    package func publish(isMiss: Bool, _ make: () -> LiveEvent) {
        guard isMiss || watchers.load(ordering: .relaxed) > 0 else { return }
        if !isMiss && roomy.load(ordering: .relaxed) == 0 && !collecting.load(ordering: .relaxed) {
            // Every page is full until its next write: nobody would receive this one.
            _ = skipped.add(1, ordering: .relaxed)
            return
        }
        let event = make()
        let json = event.json
        let message = "event: request\ndata: \(json.compactJSON)\n\n"
        let flushes: [(any Channel, ObjectIdentifier)] = state.withLock { state in
            if isMiss {
                state.recent.append(message)
                if state.recent.count > Self.recentMisses { state.recent.removeFirst() }
            }
            if state.collected != nil {
                if state.collected!.count < state.collectLimit { state.collected!.append(json) } else { state.collectDropped += 1 }
            }
            var due: [(any Channel, ObjectIdentifier)] = []
            for id in state.followers.keys {
                if state.followers[id]!.pending.count >= Self.bufferLimit {
                    state.followers[id]!.dropped += 1
                    continue
                }
                state.followers[id]!.pending.append(message)
                if state.followers[id]!.pending.count == Self.bufferLimit { _ = roomy.subtract(1, ordering: .relaxed) }
                if !state.followers[id]!.flushScheduled {
                    state.followers[id]!.flushScheduled = true
                    due.append((state.followers[id]!.channel, id))
                }
            }
            return due
        }
        for (channel, id) in flushes {
            channel.eventLoop.scheduleTask(in: Self.flushInterval) { self.flush(id) }
        }
    }

    /// Starts following on `channel`, whose event-stream head has been written: the kept misses
    /// first, then every event as it comes. Ends when the channel closes.
    package func follow(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let recent = state.withLock { state in
            state.followers[id] = Follower(channel: channel, skippedSeen: skipped.load(ordering: .relaxed))
            _ = roomy.add(1, ordering: .relaxed)
            return state.recent
        }
        _ = watchers.add(1, ordering: .relaxed)
        write(": following\n\n" + recent.joined(), to: channel)
        channel.closeFuture.whenComplete { _ in
            let removed = self.state.withLock { state in
                guard let follower = state.followers.removeValue(forKey: id) else { return false }
                if follower.pending.count < Self.bufferLimit { _ = self.roomy.subtract(1, ordering: .relaxed) }
                return true
            }
            if removed { _ = self.watchers.subtract(1, ordering: .relaxed) }
        }
    }

    /// Keeps every event from now on (up to `limit`), for a run's report.
    package func startCollecting(limit: Int = 100_000) {
        state.withLock { state in
            state.collected = []
            state.collectLimit = limit
        }
        collecting.store(true, ordering: .relaxed)
        _ = watchers.add(1, ordering: .relaxed)
    }

    /// What was kept since `startCollecting`, and how many events did not fit.
    package func collected() -> (events: [JSONValue], dropped: Int) {
        state.withLock { ($0.collected ?? [], $0.collectDropped) }
    }

    /// On the follower's event loop: everything that came since the last write, in one write.
    private func flush(_ id: ObjectIdentifier) {
        let taken: (channel: any Channel, text: String)? = state.withLock { state in
            guard var follower = state.followers[id] else { return nil }
            let skippedNow = skipped.load(ordering: .relaxed)
            follower.dropped += skippedNow - follower.skippedSeen
            follower.skippedSeen = skippedNow
            if follower.pending.count >= Self.bufferLimit { _ = roomy.add(1, ordering: .relaxed) }
            let writable = follower.channel.isWritable
            var text = writable ? follower.pending.joined() : ""
            if !writable { follower.dropped += follower.pending.count }
            if follower.dropped > 0 && writable {
                text += "event: dropped\ndata: {\"count\":\(follower.dropped)}\n\n"
                follower.dropped = 0
            }
            follower.pending.removeAll(keepingCapacity: true)
            follower.flushScheduled = false
            state.followers[id] = follower
            return (follower.channel, text)
        }
        guard let taken, !taken.text.isEmpty else { return }
        write(taken.text, to: taken.channel)
    }

    private func write(_ text: String, to channel: any Channel) {
        let part = HTTPServerResponsePart.body(.byteBuffer(channel.allocator.buffer(string: text)))
        channel.writeAndFlush(part, promise: nil)
    }
}
