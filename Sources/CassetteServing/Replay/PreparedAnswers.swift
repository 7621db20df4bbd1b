import CassetteKernel
import Foundation
import NIOCore
import NIOFoundationCompat
import WellPlateCore
import WellPlateNetworking

/// The answers of a replay-only proxy, at the replay index's positions (`ReplayIndex.Pick`):
/// made while the cassette loads and never changed, so event loops share them without a lock.
package struct PreparedAnswers: Sendable {
    private let answers: [ProxyAnswer]
    /// At the same positions: the answers that go out exactly as prepared (`PreparedReply`).
    private let replies: [PreparedReply?]
    private let maker: ReplayAnswerMaker?
    /// Some answer (prepared, or as recorded for another address) has header bytes that are not
    /// UTF-8 (`RawHeaderBytesHandler`).
    package let hasRawHeaderBytes: Bool

    package init(_ answers: [ProxyAnswer], maker: ReplayAnswerMaker?) {
        self.answers = answers
        self.maker = maker
        replies = answers.map(PreparedReply.init)
        hasRawHeaderBytes = answers.contains { answer in
            if case .prepared(let head) = answer.head, head.hasRawHeaderBytes { return true }
            return (answer.upstreamURLs as? PreparedUpstreamURLs)?.hasRawHeaderBytes == true
        }
    }

    package static let empty = PreparedAnswers([], maker: nil)

    /// The answer for a lookup's pick; a recording made after start-up (never, for a replay-only
    /// proxy) is made into one now.
    package func answer(for pick: ReplayIndex.Pick) -> ProxyAnswer {
        switch pick {
        case .loaded(let position):
            return answers[position]
        case .recorded(let recording):
            let body = recording.responseBody.isEmpty ? nil : ByteBuffer(bytes: recording.responseBody)
            return maker?.answer(recording, body: body) ?? ProxyAnswer(recording.response, source: .replayed)
        }
    }

    /// The answer for a recording made for one request (its echoed secrets filled in,
    /// `Interaction.echoingSecrets(of:)`), the way answers are made at start-up.
    package func answer(made recording: Interaction) -> ProxyAnswer {
        let body = recording.responseBody.isEmpty ? nil : ByteBuffer(bytes: recording.responseBody)
        return maker?.answer(recording, body: body) ?? ProxyAnswer(recording.response, source: .replayed)
    }

    /// The pick's answer when it goes out exactly as prepared: one reference, where
    /// `answer(for:)` copies the whole answer.
    package func reply(for pick: ReplayIndex.Pick) -> PreparedReply? {
        guard case .loaded(let position) = pick else { return nil }
        return replies[position]
    }
}

/// Prepares every recording while the cassette loads (`CassetteSession.open(...preparing:)`):
/// each body is copied once, from SQLite into a few large buffers (`BodyArena`), and the index
/// keeps views of those; heads are shared between recordings with the same response headers,
/// status and body length.
package struct ResponsePreparer: ReplayAnswerPreparer, Sendable {
    private struct HeadKey: Hashable {
        package let block: Int
        package let bodyCount: Int
        package let statusCode: Int
        package let isHead: Bool
    }

    package let maker: ReplayAnswerMaker
    private var arena = BodyArena()
    /// By load number; `nil` for an empty body.
    private var places: [BodyArena.Place?] = []
    private var heads: [HeadKey: PreparedHead] = [:]

    package init(maker: ReplayAnswerMaker) {
        self.maker = maker
    }

    package mutating func storeBody(_ bytes: UnsafeRawBufferPointer, number: Int) {
        precondition(number == places.count, "ResponsePreparer: bodies are stored in load order")
        places.append(bytes.isEmpty ? nil : arena.store(bytes))
    }

    package mutating func prepare(_ recording: inout Interaction, number: Int, responseHeaderBlock: Int) -> ProxyAnswer {
        let body = places[number].map { arena.slice($0) }
        recording.responseBody = body.map { Data(buffer: $0, byteTransferStrategy: .noCopy) } ?? Data()
        let key = HeadKey(
            block: responseHeaderBlock, bodyCount: recording.responseBody.count, statusCode: recording.statusCode, isHead: recording.method == .head)
        let head = heads[key] ?? PreparedHead(recording, bodyCount: key.bodyCount)
        heads[key] = head
        return maker.answer(recording, head: head, body: body)
    }
}
