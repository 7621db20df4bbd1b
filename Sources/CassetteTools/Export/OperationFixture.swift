import Foundation
import WellPlateCore

/// A GraphQL operation carried inside WebSocket conversations (a subscription, or a query sent
/// over the socket) as a fixture file (`export --fixtures` writes one per operation and variables
/// variant under `websocket/`): its name, the conversation's key, its variables and the payloads
/// the server sent for it (each `next`/`data` message's execution result, in order), from the
/// most recent conversation that ran it.
package struct OperationFixture: Sendable, Equatable {
    /// `subscription Countdown`.
    package let operation: String
    /// The key of the conversation it ran in (`GET /graphql`).
    package let key: String
    package let variables: JSONValue?
    package let payloads: [JSONValue]
    /// `websocket/subscription_countdown.json`, or with the variables' words after it
    /// (`..._from_2.json`) when the operation ran with two or more variants.
    package let fileName: String

    /// The file's JSON.
    package var json: JSONValue {
        ["operation": .string(operation), "key": .string(key), "variables": variables ?? .null, "payloads": .array(payloads)]
    }

    /// The operation's name and payloads when `value` is such a fixture (`operation`, `key` and
    /// `payloads`), as a drift check reads it.
    package static func operation(of value: JSONValue) -> (name: String, payloads: [JSONValue])? {
        guard let name = value["operation"]?.stringValue, value["key"]?.stringValue != nil, let payloads = value["payloads"]?.arrayValue else { return nil }
        return (name, payloads)
    }

    /// The file's bytes: sorted keys, pretty-printed, ending in a newline.
    package func encoded() -> Data {
        Data((json.prettyJSON + "\n").utf8)
    }

    /// The fixtures of the GraphQL operations in `conversations` (oldest first, as listed): one
    /// per operation and variables variant, from the last conversation that ran it.
    package static func fixtures(_ conversations: [Conversation]) -> [OperationFixture] {
        struct Found {
            let label: String
            let key: String
            let variables: JSONValue?
            var payloads: [JSONValue]
        }
        var found: [String: Found] = [:]
        var order: [String] = []
        for conversation in conversations.sorted(by: { $0.recordedAt < $1.recordedAt }) {
            for operation in ConversationOperations(conversation).operations where operation.kind == .graphQL {
                let variant = operation.label + " " + (operation.variables?.jsonString(options: .sortedKeys) ?? "")
                if found[variant] == nil { order.append(variant) }
                found[variant] = Found(label: operation.label, key: conversation.key, variables: operation.variables, payloads: operation.answers)
            }
        }
        let variantsPerLabel = Dictionary(grouping: order.compactMap { found[$0] }, by: \.label).mapValues(\.count)
        var taken: [String: Int] = [:]
        return order.compactMap { found[$0] }.sorted {
            ($0.label, $0.variables?.jsonString(options: .sortedKeys) ?? "") < ($1.label, $1.variables?.jsonString(options: .sortedKeys) ?? "")
        }
        .map { entry in
            var base = words(entry.label)
            if variantsPerLabel[entry.label, default: 0] > 1, let variables = entry.variables {
                let suffix = words(variables.jsonString(options: .sortedKeys))
                if !suffix.isEmpty { base += "_" + String(suffix.prefix(40)) }
            }
            let count = taken[base, default: 0] + 1
            taken[base] = count
            return OperationFixture(
                operation: entry.label, key: entry.key, variables: entry.variables, payloads: entry.payloads,
                fileName: "websocket/" + base + (count == 1 ? "" : "_\(count)") + ".json")
        }
    }

    /// Lower-case ASCII letters and digits, other runs as one `_`.
    private static func words(_ text: String) -> String {
        var result = ""
        for scalar in text.lowercased().unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                result.unicodeScalars.append(scalar)
            } else if !result.isEmpty, !result.hasSuffix("_") {
                result += "_"
            }
        }
        while result.hasSuffix("_") { result.removeLast() }
        return result
    }
}
