import CassetteTools
import Foundation
import NIOCore
import NIOPosix
import WellPlateCore
import WellPlateNetworking

/// One live session (`POST /__cassette/sessions`): a cassette opened in its own mode, with its
/// own sequence positions and journal, served on a listener of its own and, through
/// `X-Cassette-Session`, on the main port.
final class ProxySession: Sendable {
    let id: String
    let cassette: String
    /// The mode the cassette was opened in (`none` with `--on-miss record` opens as `missing`).
    let mode: RecordMode
    /// `http://HOST:PORT` of its own listener.
    let baseURL: String
    let session: CassetteSession
    let journal: SessionJournal
    /// What its connections are given; the main port answers `X-Cassette-Session` requests with
    /// them too.
    let parts: ProxyHandler.Parts
    let server: ProxyServer
    /// Replay keys and slots of this session's index, per event loop, for requests that reach it
    /// through the main port (its own listener keeps its own, `ProxyServer`).
    private let targetCaches: [ObjectIdentifier: NIOLoopBoundBox<ReplayTargetCache>]

    init(
        id: String, cassette: String, mode: RecordMode, baseURL: String, session: CassetteSession, journal: SessionJournal, parts: ProxyHandler.Parts,
        server: ProxyServer, group: MultiThreadedEventLoopGroup
    ) {
        self.id = id
        self.cassette = cassette
        self.mode = mode
        self.baseURL = baseURL
        self.session = session
        self.journal = journal
        self.parts = parts
        self.server = server
        targetCaches = Dictionary(
            uniqueKeysWithValues: group.makeIterator().map { loop in
                (ObjectIdentifier(loop), NIOLoopBoundBox.makeBoxSendingValue(ReplayTargetCache(), eventLoop: loop))
            })
    }

    /// This session's replay keys for a request on `eventLoop`'s main-port connection.
    func targetCache(on eventLoop: any EventLoop) -> NIOLoopBoundBox<ReplayTargetCache> {
        targetCaches[ObjectIdentifier(eventLoop)] ?? .makeBoxSendingValue(ReplayTargetCache(), eventLoop: eventLoop)
    }

    /// Empties the journal and starts every sequence again.
    func reset() {
        session.restart()
        journal.clear()
    }

    /// What the session served so far.
    var summary: SessionSummary {
        SessionSummary(journal.tally, unused: session.index.statistics.unusedKeys)
    }

    /// Stops its listener, letting requests in flight finish (and go into the journal).
    func close() async {
        await server.shutdown()
    }

    /// `{"id", "baseURL", "cassette", "mode", "requests", "idleSeconds"}`.
    var json: JSONObject {
        let idle = journal.idleTime
        return [
            "id": .string(id),
            "baseURL": .string(baseURL),
            "cassette": .string(cassette),
            "mode": .string(mode.rawValue),
            "requests": .integer(Int64(journal.count)),
            "idleSeconds": .number((Double(idle.nanoseconds) / 1e7).rounded() / 100),
        ]
    }
}

/// Where a request with `X-Cassette-Session` goes.
struct SessionRoute {
    let parts: ProxyHandler.Parts
    let targetCache: NIOLoopBoundBox<ReplayTargetCache>
}
