import CassetteTools
import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

/// Decides the answer to one request: the proxy's policy on top of the cassette session's.
/// A replay-only proxy answers on the event loop instead (`ProxyHandler.replayNow`); this path
/// runs in a task, since it may forward upstream or record.
struct ProxyResponder: Sendable {
    let session: CassetteSession
    let settings: ProxySettings
    /// The upstream, redacted, for error answers; `nil` when no upstream is known.
    let upstreamDescription: String?

    /// Whether every request can be answered from the cassette alone, on the event loop
    /// (`ProxyHandler.replayNow`): nothing is forwarded or recorded.
    var answersSynchronously: Bool {
        settings.isReplayOnly(mode: session.options.mode)
    }

    func answer(_ request: TransportRequest) async -> ProxyAnswer {
        do {
            if session.options.mode == .none {
                do {
                    return replayed(try session.replay(request))
                } catch is CassetteMiss where settings.missPolicy == .passthrough {
                    return ProxyAnswer(try await session.passthrough(request).response, source: .passthrough)
                }
            }
            return answer(for: try await session.respond(to: request), request: request)
        } catch {
            return answer(for: error)
        }
    }

    /// The answer to a whole exchange, whether it was asked for whole or might have streamed.
    func answer(for exchange: CassetteSession.Exchange, request: TransportRequest) -> ProxyAnswer {
        switch exchange.outcome {
        case .replayed: return replayed(exchange)
        case .recorded: return ProxyAnswer(exchange.response, source: .recorded)
        case .passthrough: return ProxyAnswer(exchange.response, source: .passthrough)
        case .miss:
            return answer(
                for: CassetteMiss(
                    method: request.method, key: exchange.key.rawValue, cassette: session.options.cassette, storePath: session.store.path, nearest: []))
        }
    }

    func replayed(_ exchange: CassetteSession.Exchange) -> ProxyAnswer {
        guard let interaction = exchange.interaction else { return ProxyAnswer(exchange.response, source: .replayed) }
        return answer(replaying: interaction, response: exchange.response, target: exchange.key.path)
    }

    /// A replayed answer from `interaction`, refused or warned about when it is older than
    /// `--max-age` (`target`, redacted, names the request in the warning).
    func answer(replaying interaction: Interaction, response: TransportResponse, target: String) -> ProxyAnswer {
        if let policy = settings.stalePolicy, policy.isStale(interaction) {
            let line = policy.report(method: interaction.method.rawValue, target: target, notice: policy.notice(for: interaction))
            FileHandle.standardError.write(Data((line + "\n").utf8))
            if policy.fails {
                return .json(settings.missStatus, policy.refusal(for: interaction), source: .miss)
            }
        }
        return ProxyAnswer(response, source: .replayed, delay: settings.replayDelay(recorded: interaction.duration))
    }

    func answer(for error: any Error) -> ProxyAnswer {
        switch error {
        case let miss as CassetteMiss:
            let nearest: [JSONValue] = miss.nearest.map { difference in
                ["key": .string(difference.recorded.rawValue), "differences": .array(difference.items.map { .string($0.description) })]
            }
            return .json(
                settings.missStatus,
                [
                    "error": "cassette_miss",
                    "message": .string(miss.summary + ". Record it with `cassette record --mode missing`, or replay with --on-miss passthrough."),
                    "key": .string(miss.key),
                    "cassette": .string(miss.cassette),
                    "nearest": .array(nearest),
                ], source: .miss)
        case let failure as RecordingFailure:
            // The upstream's answer still reaches the client; the failure is reported loudly.
            Terminal.printError(failure.description)
            var answer = ProxyAnswer(failure.response, source: .error)
            answer.headerFields[ProxyHeaders.recordError] = failure.underlying.message
            return answer
        case let transport as TransportError:
            let upstream = upstreamDescription ?? "the upstream"
            let status = transport.kind == .timeout ? 504 : 502
            return .json(
                status,
                [
                    "error": transport.kind == .timeout ? "upstream_timeout" : transport.kind == .tls ? "upstream_tls_failed" : "upstream_unreachable",
                    "upstream": .string(upstream),
                    "message": .string("\(upstream) failed: \(TLSHint.message(transport))"),
                ], source: .error)
        case let request as ProxyRequestError:
            return .error(request.status, code: request.code, message: request.message)
        case is CancellationError:
            return .error(503, code: "shutting_down", message: "the proxy is shutting down")
        default:
            return .error(500, code: "internal_error", message: (error as? LocalizedError)?.errorDescription ?? String(describing: error))
        }
    }
}

enum ProxyHeaders {
    static let recordError = HTTPField.Name("X-Cassette-Record-Error")!
}
