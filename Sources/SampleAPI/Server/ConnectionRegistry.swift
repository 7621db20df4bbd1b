import NIOCore
import NIOHTTP1
import Synchronization

/// The open connections, so that shutdown can ask each one to close once its current request is answered.
final class ConnectionRegistry: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        var isQuiescing = false
    }

    private let state = Mutex(State())

    /// Adds a new connection. One that arrives after shutdown began is told to quiesce at once.
    func track(_ channel: any Channel) {
        let quiesceNow = state.withLock { state in
            state.channels[ObjectIdentifier(channel)] = channel
            return state.isQuiescing
        }
        if quiesceNow { Self.quiesce(channel) }
    }

    /// Whether shutdown has begun.
    var isQuiescing: Bool {
        state.withLock { $0.isQuiescing }
    }

    func untrack(_ channel: any Channel) {
        _ = state.withLock { $0.channels.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Idle connections close now; busy ones close after the response in flight.
    func quiesceAll() {
        let channels = state.withLock { state in
            state.isQuiescing = true
            return Array(state.channels.values)
        }
        channels.forEach(Self.quiesce)
    }

    /// Longer than the slowest answer (`/api/slow` waits at most 60 s): a connection still open
    /// then is closed, so a shutdown always ends.
    static let shutdownLimit = TimeAmount.seconds(65)

    private static func quiesce(_ channel: any Channel) {
        // HTTPServerPipelineHandler acts on this event (see HTTPChannelSetup): an idle connection
        // closes now, a busy one after the answer to the last request it has read.
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        channel.eventLoop.scheduleTask(in: shutdownLimit) { channel.close(promise: nil) }
    }
}
