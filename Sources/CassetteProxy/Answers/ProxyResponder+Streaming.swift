import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// Answers that may stream: a forwarded response the session's policy streams is handed to the
/// handler head first, so it writes each chunk as the upstream sends it.
extension ProxyResponder {
    enum StreamedAnswer: Sendable {
        case whole(ProxyAnswer)
        case streaming(StreamingExchange)
        /// A streamed recording (it has `chunks`), replayed in its pieces.
        case replay(Interaction)
    }

    /// `answer(_:)`, except that streamed responses (Server-Sent Events, bodies of unknown or
    /// large size: `CassetteSession.StreamingPolicy`) come back as they arrive.
    func answerStreaming(_ request: TransportRequest) async -> StreamedAnswer {
        do {
            let streamed: CassetteSession.StreamingAnswer
            if session.options.mode == .none {
                do {
                    return .whole(replayed(try session.replay(request)))
                } catch is CassetteMiss where settings.missPolicy == .passthrough {
                    streamed = try await session.passthroughStreaming(request, policy: settings.streaming)
                }
            } else {
                streamed = try await session.respondStreaming(to: request, policy: settings.streaming)
            }
            switch streamed {
            case .streaming(let exchange):
                return .streaming(exchange)
            case .whole(let exchange):
                if exchange.outcome == .replayed, let interaction = exchange.interaction, interaction.chunks != nil, settings.stalePolicy == nil {
                    return .replay(interaction)
                }
                return .whole(answer(for: exchange, request: request))
            }
        } catch {
            return .whole(answer(for: error))
        }
    }
}
