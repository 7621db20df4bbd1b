import Foundation
import HTTPTypes
import WellPlateCore

/// The GraphQL operations carried inside WebSocket conversations (subscriptions, and queries
/// sent over the socket) as samples for `schema` and `diff`: each operation becomes one recording,
/// its request the operation's `subscribe` payload (document and variables) and its answer the
/// payloads the server sent for it, as a JSON text sequence (`application/json-seq`) whose texts
/// are each a sample, so a subscription counts once whatever it sent, as a gRPC stream is one
/// call (`GRPCEndpoints`), and its answers describe the same endpoint as the operation sent over
/// HTTP (`POST /graphql subscription Countdown`).
package enum ConversationSamples {
    package static func interactions(_ conversations: [Conversation]) -> [Interaction] {
        var result: [Interaction] = []
        for conversation in conversations {
            for operation in ConversationOperations(conversation).operations where operation.kind == .graphQL {
                let opening = conversation.messages[operation.messageIndexes[0]]
                guard let request = (try? JSONValue(parsing: opening.payload))?["payload"], let object = request.objectValue,
                    let graphQL = GraphQLOperation(object)
                else { continue }
                let body = Data(request.compactJSON.utf8)
                // Keyed as the operation sent over HTTP is, which is what names its endpoint.
                let target = conversation.key.hasPrefix("GET ") ? String(conversation.key.dropFirst(4)) : conversation.key
                let key = "POST \(target) " + GraphQLKeyPart(kind: graphQL.type?.rawValue ?? "persisted", name: graphQL.name).description
                let answers = operation.answers.filter { $0.objectValue != nil }
                guard !answers.isEmpty else { continue }
                result.append(
                    Interaction(
                        cassette: conversation.cassette, method: .post, url: conversation.url, key: key,
                        requestHeaders: [.contentType: "application/json"], requestBody: body, statusCode: 200,
                        responseHeaders: [.contentType: JSONBodies.jsonSequenceMediaType], responseBody: JSONBodies.jsonSequence(answers),
                        recordedAt: conversation.recordedAt))
            }
        }
        return result
    }
}
