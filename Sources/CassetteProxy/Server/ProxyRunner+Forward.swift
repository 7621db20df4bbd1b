import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `--forward`: the forward proxy's listener, its authority and its hosts.
extension ProxyRunner {
    func forwardPipeline(
        _ forward: ForwardOptions, session: CassetteSession, settings: ProxySettings, prepared: PreparedAnswers, maker: ReplayAnswerMaker,
        requestLog: RequestLog?, store: CassetteStore
    ) async throws -> ForwardPipeline {
        let authority: CertificateAuthority
        if CertificateAuthority.exists(in: forward.caDirectory) {
            authority = try CertificateAuthority.load(from: forward.caDirectory)
        } else {
            authority = try CertificateAuthority.create(in: forward.caDirectory)
            Terminal.printWarning(
                "created a certificate authority in \(forward.caDirectory); clients must trust \(authority.certificatePath) to be recorded over HTTPS (README: \"Trusting cassette's certificate authority\")"
            )
        }
        let leaves: LeafCertificates
        do {
            leaves = try LeafCertificates(authority: authority)
        } catch {
            throw CLIError("cannot use the certificate authority in \(forward.caDirectory): \(error)")
        }
        let replayOnly = settings.isReplayOnly(mode: session.options.mode)
        let origins = replayOnly ? Set((try? await store.recordedOrigins(cassette: cassette)) ?? []) : []
        let base = ProxyPipeline(session: session, settings: settings, prepared: prepared, maker: maker, modeName: modeName, requestLog: requestLog)
        let modeName = modeName
        let router = ForwardRouter(
            options: forward, leaves: leaves, replayOnly: replayOnly, recordedOrigins: origins, cassette: cassette, missStatus: settings.missStatus,
            log: ProxyLog(requestLog: requestLog, stalePolicy: nil), base: base
        ) { origin, records in
            var hostSettings = settings
            hostSettings.upstream = origin
            return ProxyPipeline(
                session: session, settings: hostSettings, prepared: prepared, maker: maker, modeName: modeName, requestLog: requestLog,
                recordsForwarded: records)
        }
        return ForwardPipeline(router: router)
    }

    /// The second line of a forward proxy: how clients use it.
    func announceForward(_ address: String, authority: CertificateAuthority) {
        let line =
            "forward proxy: set HTTPS_PROXY and HTTP_PROXY to \(address); clients must trust \(authority.certificatePath) (`cassette ca path`)"
        if outputDescriptor == STDOUT_FILENO {
            Terminal.printLine(line)
        } else {
            StandardStream.error.write(line + "\n")
        }
    }
}
