import CassetteServing
import Foundation
import NIOCore
import WellPlateCore

/// How a gRPC call was answered, as each place that tells of it names it: the request log
/// (`replayed`), the session's journal and the Live view (`hit`), the shutdown summary.
enum GRPCCallOutcome: Sendable {
    case replayed, recorded, passedThrough
    /// No recording answered it (nothing for the method, no recording of its request, a changed
    /// stream message).
    case missed
    /// Bad input, or no upstream to record from.
    case refused

    /// The log line's word: `replayed`, `recorded`, `passed through`, `missed`, `refused`.
    var logWord: String {
        switch self {
        case .replayed: "replayed"
        case .recorded: "recorded"
        case .passedThrough: "passed through"
        case .missed: "missed"
        case .refused: "refused"
        }
    }

    var journalSource: SessionJournal.Source {
        switch self {
        case .replayed: .hit
        case .recorded: .recorded
        case .passedThrough: .passthrough
        case .missed: .miss
        case .refused: .error
        }
    }
}

extension GRPCService {
    /// Tells of a call that ended: its session's journal, the UI's Live view, the summary's tally
    /// (a miss also counts for `--strict`).
    func report(path: String, status: String, message: String?, outcome: GRPCCallOutcome, started: NIODeadline) {
        switch outcome {
        case .recorded: served.session.countGRPCRecorded()
        case .missed: served.session.countGRPCMiss()
        case .replayed, .passedThrough, .refused: break
        }
        let source = outcome.journalSource
        served.journal?.addGRPCCall(
            SessionJournal.GRPCCall(method: path, status: status, message: message), origin: served.log.targetPrefix.isEmpty ? nil : served.log.targetPrefix,
            key: key(path: path), source: source, started: started)
        served.live?.announceCall(path: path, grpcStatus: status, message: message, tag: source.rawValue, started: started, session: served.liveSession)
    }
}
