import CassetteKernel
import CassetteServing
import Foundation
import WellPlateCore
import WellPlateNetworking

/// How a cassette is served as a forward proxy: what the proxy's own listener and each of its
/// sessions share (the authority's certificates, the hosts to leave alone), so a session of a
/// forward proxy is a forward proxy of its own for its cassette.
package struct ForwardServing: ForwardListening {
    package let options: ForwardOptions
    package let leaves: LeafCertificates

    package init(options: ForwardOptions, leaves: LeafCertificates) {
        self.options = options
        self.leaves = leaves
    }

    /// The listener serving `served`: its endpoints (with `sessions`, the main port's) and, per
    /// host, a pipeline recording or replaying it. `journal` and `logLabel` are a session's.
    package func listener(
        served: ServedCassette, maker: ReplayAnswerMaker, sessions: SessionRegistry?, journal: SessionJournal?, logLabel: String?
    ) -> ForwardListener {
        let settings = served.settings
        let replayOnly = served.session.options.policy.isReplayOnly
        let base = ServingPipeline(served: served, settings: settings, maker: maker, sessions: sessions, journal: journal, logLabel: logLabel)
        let router = ForwardRouter(
            options: options, leaves: leaves, replayOnly: replayOnly, recordedOrigins: replayOnly ? served.recordedOrigins : [],
            cassette: served.name, missStatus: settings.missStatus,
            log: ProxyLog(requestLog: served.context.requestLog, stalePolicy: nil, logger: served.context.logger, label: logLabel), base: base
        ) { origin, records in
            var hostSettings = settings
            hostSettings.upstream = origin
            return ServingPipeline(
                served: served, settings: hostSettings, maker: maker, recordsForwarded: records, sessions: sessions, journal: journal,
                logLabel: logLabel)
        }
        return ForwardListener(pipeline: ForwardPipeline(router: router), hosts: router, base: base.parts, authorityPath: leaves.authority.certificatePath)
    }
}
