import CassetteKernel
import Foundation
import HTTPTypes
import NIOCore
import WellPlateCore
import WellPlateNetworking

/// Decides the answer to one request that may go upstream: the proxy's policy on top of the
/// cassette session's. It runs in a task, since it may forward or record; a replay-only proxy
/// answers on the event loop instead (`ProxyReplayer`).
package struct ProxyResponder: Sendable {
    package let session: CassetteSession
    package let settings: ProxySettings
    /// Makes replayed recordings into answers, as the replay-only path does.
    package let replays: ReplayAnswerMaker
    /// The upstream, redacted, for error answers; `nil` when no upstream is known.
    package let upstreamDescription: String?
    /// `false` for a host the forward proxy passes on as it is (`--passthrough-host`, outside
    /// `--host-filter`): forwarded, never recorded.
    package var recordsForwarded = true
    /// Where a failed recording is reported.
    package let log: ProxyLog

    /// The answer to `request`. With `streams`, a forwarded response the session's policy streams
    /// (Server-Sent Events, bodies of unknown or large size: `CassetteSession.StreamingPolicy`)
    /// comes back head first, its body as it arrives; without, everything comes back whole.
    /// `own`: the address of the listener it came in on, recorded and keyed as a placeholder.
    package func answer(_ request: TransportRequest, streams: Bool = true, own: OwnAddress? = nil) async -> ProxyAnswer {
        do {
            if !recordsForwarded {
                guard streams else { return ProxyAnswer(try await session.passthrough(request).response, source: .passthrough) }
                return answer(for: try await session.passthroughStreaming(request, policy: settings.streaming), request: request)
            }
            guard streams else { return answer(for: try await session.respond(to: request, own: own), request: request) }
            return answer(for: try await session.respondStreaming(to: request, policy: settings.streaming, own: own), request: request)
        } catch {
            return answer(for: error)
        }
    }

    private func answer(for streamed: CassetteSession.StreamingAnswer, request: TransportRequest) -> ProxyAnswer {
        switch streamed {
        case .whole(let exchange):
            return answer(for: exchange, request: request)
        case .streaming(let exchange):
            let source: ProxyAnswer.Source = exchange.outcome == .recorded ? .recorded : .passthrough
            return ProxyAnswer(head: .fields(statusCode: exchange.head.statusCode, exchange.head.headerFields), body: .stream(exchange), source: source)
        }
    }

    /// The answer to a whole exchange.
    private func answer(for exchange: CassetteSession.Exchange, request: TransportRequest) -> ProxyAnswer {
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

    private func replayed(_ exchange: CassetteSession.Exchange) -> ProxyAnswer {
        guard let recording = exchange.interaction else { return ProxyAnswer(exchange.response, source: .replayed) }
        return replays.answer(recording, body: recording.responseBody.isEmpty ? nil : ByteBuffer(bytes: recording.responseBody))
    }

    package func answer(for error: any Error) -> ProxyAnswer {
        switch error {
        case let miss as CassetteMiss:
            let nearest: [JSONValue] = miss.nearest.map { difference in
                ["key": .string(difference.recorded.rawValue), "differences": .array(difference.items.map { .string($0.description) })]
            }
            var answer = ProxyAnswer.json(
                settings.missStatus,
                [
                    "error": "cassette_miss",
                    "message": .string(miss.summary + ". Record it with `cassette record --mode missing`, or replay with --on-miss passthrough."),
                    "key": .string(miss.key),
                    "cassette": .string(miss.cassette),
                    "nearest": .array(nearest),
                ], source: .miss)
            answer.miss = ReportedMiss(miss)
            return answer
        case let failure as RecordingFailure:
            // The upstream's answer still reaches the client; the failure is reported loudly.
            log.error(failure.description)
            var fields = failure.response.headerFields
            fields[ControlNames.recordErrorHeader] = failure.underlying.message
            return ProxyAnswer(statusCode: failure.response.statusCode, headerFields: fields, body: failure.response.body, source: .error)
        case let transport as TransportError:
            let upstream = upstreamDescription ?? "the upstream"
            let status = transport.kind == .timeout ? 504 : 502
            // The transport's message starts with the request's URL, which names the upstream:
            // named a second time in front, it read "https://h:1 failed: GET https://h:1/x: ...".
            let detail = TLSHint.message(transport)
            return .json(
                status,
                [
                    "error": transport.kind == .timeout ? "upstream_timeout" : transport.kind == .tls ? "upstream_tls_failed" : "upstream_unreachable",
                    "upstream": .string(upstream),
                    "message": .string(detail.contains(upstream) ? detail : "\(upstream) failed: \(detail)"),
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
