import Foundation

/// The operations a recorded conversation carried (`MessageOperation`): each opened by a client
/// message and followed by the messages of both sides that carry its id, until the next message
/// that opens one with the same id. What replay matches operation by operation, and what the
/// tools name (`list`, `show`, fixtures, schema).
package struct ConversationOperations: Sendable, Equatable {
    package struct Operation: Sendable, Equatable {
        /// `subscription Countdown`, `query Hello`, `rpc add`, `event add`.
        package let label: String
        package let kind: MessageOperation.Kind
        /// The id the recording's client chose.
        package let id: String
        package let variables: JSONValue?
        /// The positions of its messages in the conversation, the opening one first.
        package var messageIndexes: [Int]
        /// The JSON the server answered with, in order (`MessageOperation.answer`).
        package var answers: [JSONValue]

        /// The path of its id in its messages.
        package var idPath: [JSONPathComponent] {
            kind == .socketIO ? EchoedValues.ackPath : [.key("id")]
        }
    }

    package let operations: [Operation]
    /// For each message of the conversation, the position of its operation in `operations`;
    /// `nil` for a message of none.
    package let operationOfMessage: [Int?]

    package init(_ conversation: Conversation) {
        var operations: [Operation] = []
        var open: [String: Int] = [:]
        var ofMessage: [Int?] = Array(repeating: nil, count: conversation.messages.count)
        for (index, message) in conversation.messages.enumerated() {
            guard let found = MessageOperation(message) else { continue }
            let key = found.kind.rawValue + " " + found.id
            if found.opens {
                open[key] = operations.count
                operations.append(
                    Operation(
                        label: found.label ?? found.kind.rawValue, kind: found.kind, id: found.id, variables: found.variables, messageIndexes: [], answers: []))
            }
            // A server message for an id no client message opened is the server's own: turn order.
            guard let position = open[key] else { continue }
            operations[position].messageIndexes.append(index)
            if let answer = found.answer { operations[position].answers.append(answer) }
            ofMessage[index] = position
        }
        self.operations = operations
        operationOfMessage = ofMessage
    }

    package var isEmpty: Bool { operations.isEmpty }

    /// The operations' labels, each once, in the order they were first opened.
    package var labels: [String] {
        var seen: Set<String> = []
        return operations.map(\.label).filter { seen.insert($0).inserted }
    }
}
