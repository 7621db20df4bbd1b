import Foundation

/// A recorded conversation replayed operation by operation, for the protocols that run several
/// operations on one socket at once (`ConversationOperations`): which of them a client starts
/// first depends on its tasks, not on the recording. A live client message that opens an
/// operation is matched against the recorded operations not yet replayed, whatever their order
/// (two with the same message in recorded order); the server messages of the operation it
/// matched are sent after it, each at its recorded delay from the one before in that operation,
/// with the live client's id in place of the recorded one. The messages of no operation
/// (`connection_init`, pings, notifications) replay turn by turn as `ConversationReplay` does,
/// and the server's recorded end waits until every operation has been replayed.
///
/// Each operation is a lane: lane 0 is the messages of no operation, lane `n` the recording's
/// `n`th operation. The handler keeps each lane's own clock and order.
package struct MultiplexedReplay: Sendable {
    /// An action, in its lane.
    package struct Step: Sendable, Equatable {
        package let lane: Int
        package let action: ConversationReplay.Action

        package init(lane: Int, _ action: ConversationReplay.Action) {
            self.lane = lane
            self.action = action
        }
    }

    private struct Lane: Sendable {
        let operation: ConversationOperations.Operation
        var replay: ConversationReplay
        var started = false
        /// The recorded offset of its last message: the held end's delay counts from it.
        let lastOffset: Double

        var isExhausted: Bool { started && !replay.awaitsClient }
    }

    package let conversation: Conversation
    private var background: ConversationReplay
    private var lanes: [Lane]
    /// The lane each live operation (its kind and live id) was matched to.
    private var liveLanes: [String: Int] = [:]
    /// The server's recorded end, held until every operation has been replayed.
    private var heldEnd: ConversationReplay.Action?
    /// The recorded offset of the server's end.
    private let endOffset: Double
    /// The lane of the operation the last client message opened; `nil` when it opened none.
    package private(set) var openedLane: Int?

    /// The replay of `conversation` from its start.
    package init(_ conversation: Conversation) {
        self.conversation = conversation
        let operations = ConversationOperations(conversation)
        guard !operations.isEmpty else {
            background = ConversationReplay(conversation)
            lanes = []
            endOffset = 0
            return
        }
        var rest = conversation
        rest.messages = conversation.messages.indices.filter { operations.operationOfMessage[$0] == nil }.map { conversation.messages[$0] }
        background = ConversationReplay(rest)
        lanes = operations.operations.map { operation in
            var lane = conversation
            lane.messages = operation.messageIndexes.map { conversation.messages[$0] }
            lane.end = .cut
            return Lane(
                operation: operation, replay: ConversationReplay(lane, echoes: EchoedValues(paths: [operation.idPath])),
                lastOffset: lane.messages.last?.offsetMilliseconds ?? 0)
        }
        endOffset =
            rest.messages.last { $0.direction == .server && $0.kind == .close }?.offsetMilliseconds ?? conversation.messages.last?.offsetMilliseconds ?? 0
    }

    /// Whether the recording carried operations; without, this is a `ConversationReplay`.
    package var isMultiplexed: Bool { !lanes.isEmpty }

    /// The label of lane `lane`'s operation (`subscription Countdown`); `nil` for lane 0.
    package func label(ofLane lane: Int) -> String? {
        lane > 0 && lane <= lanes.count ? lanes[lane - 1].operation.label : nil
    }

    /// The actions on open: the server messages recorded before the client's first message.
    package mutating func start() -> [Step] {
        var steps: [Step] = []
        appendBackground(background.start(), to: &steps)
        return steps
    }

    /// The actions answering the client's text or binary message `payload`, appended to `steps`;
    /// `matches` compares the live payload with a recorded one, both with their ids masked. A
    /// message that opens an operation no recorded one matches is a mismatch naming the nearest
    /// recorded operation.
    package mutating func receive(
        kind: ConversationMessage.Kind, payload: Data, into steps: inout [Step], matches: (_ live: Data, _ recorded: Data) -> Bool
    ) throws(ConversationReplay.Mismatch) {
        openedLane = nil
        guard !lanes.isEmpty, let found = MessageOperation(ConversationMessage(direction: .client, kind: kind, payload: payload, offsetMilliseconds: 0))
        else {
            appendBackground(try background.receive(kind: kind, payload: payload, matches: matches), to: &steps)
            return
        }
        let key = found.kind.rawValue + " " + found.id
        if found.opens {
            for index in lanes.indices where !lanes[index].started && lanes[index].operation.kind == found.kind {
                var attempt = lanes[index].replay
                guard let actions = try? attempt.receive(kind: kind, payload: payload, matches: matches) else { continue }
                lanes[index].replay = attempt
                lanes[index].started = true
                liveLanes[key] = index
                openedLane = index + 1
                steps.append(contentsOf: actions.map { Step(lane: index + 1, $0) })
                releaseEnd(after: index, into: &steps)
                return
            }
            let nearest = nearest(to: found)
            throw ConversationReplay.Mismatch(
                expected: nearest.map { conversation.messages[lanes[$0].operation.messageIndexes[0]] }, operation: nearest.map { lanes[$0].operation.label })
        }
        // A client message of an operation it opened (`complete`, `stop`): matched against that
        // operation's next recorded one; one the recording does not have ends nothing more.
        guard let index = liveLanes[key] else { throw ConversationReplay.Mismatch(expected: nil) }
        guard lanes[index].replay.awaitsClient else { return }
        let actions = try lanes[index].replay.receive(kind: kind, payload: payload, matches: matches)
        steps.append(contentsOf: actions.map { Step(lane: index + 1, $0) })
        releaseEnd(after: index, into: &steps)
    }

    /// The recorded operation a live one that matched none is told about: one not yet replayed
    /// with the same name, else any not yet replayed, else one with the same name.
    private func nearest(to found: MessageOperation) -> Int? {
        let waiting = lanes.indices.filter { !lanes[$0].started }
        return waiting.first { lanes[$0].operation.label == found.label } ?? waiting.first
            ?? lanes.indices.first { lanes[$0].operation.label == found.label }
    }

    private mutating func appendBackground(_ actions: [ConversationReplay.Action], to steps: inout [Step]) {
        let holds = !lanes.isEmpty && !lanes.allSatisfy(\.isExhausted)
        for action in actions {
            if case .send = action {
                steps.append(Step(lane: 0, action))
            } else if holds {
                heldEnd = action
            } else {
                steps.append(Step(lane: 0, action))
            }
        }
    }

    /// The held end, in the lane of the operation replayed last, once every one has been.
    private mutating func releaseEnd(after index: Int, into steps: inout [Step]) {
        guard let end = heldEnd, lanes.allSatisfy(\.isExhausted) else { return }
        heldEnd = nil
        let delay = max(0, endOffset - lanes[index].lastOffset)
        switch end {
        case .close(let code, let reason, _): steps.append(Step(lane: index + 1, .close(code: code, reason: reason, delayMilliseconds: delay)))
        case .drop: steps.append(Step(lane: index + 1, .drop(delayMilliseconds: delay)))
        case .send: steps.append(Step(lane: index + 1, end))
        }
    }
}
