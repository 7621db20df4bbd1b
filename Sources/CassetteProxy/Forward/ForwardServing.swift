import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// How a cassette is served as a forward proxy: what the proxy's own listener and each of its
/// sessions share (the authority's certificates, the hosts to leave alone), so a session of a
/// forward proxy is a forward proxy of its own for its cassette.
struct ForwardServing: Sendable {
    let options: ForwardOptions
    let leaves: LeafCertificates
    let modeName: String
    let requestLog: RequestLog?

    /// The listener serving `session`: its endpoints (with `sessions`, the main port's) and, per
    /// host, a pipeline recording or replaying it. `recordedOrigins`: the hosts a replay-only
    /// cassette has recordings of (CONNECT to any other is refused). `journal` and `logLabel`
    /// are a session's.
    func pipeline(
        session: CassetteSession, settings: ProxySettings, prepared: PreparedAnswers, maker: ReplayAnswerMaker, recordedOrigins: Set<String>,
        sessions: SessionRegistry? = nil, journal: SessionJournal? = nil, logLabel: String? = nil
    ) -> ForwardPipeline {
        let replayOnly = settings.isReplayOnly(mode: session.options.mode)
        let modeName = modeName
        let requestLog = requestLog
        let base = ProxyPipeline(
            session: session, settings: settings, prepared: prepared, maker: maker, modeName: modeName, requestLog: requestLog, sessions: sessions,
            journal: journal, logLabel: logLabel)
        let router = ForwardRouter(
            options: options, leaves: leaves, replayOnly: replayOnly, recordedOrigins: replayOnly ? recordedOrigins : [],
            cassette: session.options.cassette, missStatus: settings.missStatus,
            log: ProxyLog(requestLog: requestLog, stalePolicy: nil, label: logLabel), base: base
        ) { origin, records in
            var hostSettings = settings
            hostSettings.upstream = origin
            return ProxyPipeline(
                session: session, settings: hostSettings, prepared: prepared, maker: maker, modeName: modeName, requestLog: requestLog,
                recordsForwarded: records, sessions: sessions, journal: journal, logLabel: logLabel)
        }
        return ForwardPipeline(router: router)
    }
}
