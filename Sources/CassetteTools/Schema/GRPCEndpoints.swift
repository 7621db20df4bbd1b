import Foundation
import HTTPTypes
import WellPlateCore

/// gRPC methods as `schema` and `diff` see them: each method an endpoint, `POST
/// /package.Service/Method`, whose request and response bodies are its messages as protobuf JSON
/// (one recording per response message, so a stream's messages are samples of one type). A field
/// added, removed or retyped upstream is then drift like an endpoint's. Calls that ended with an
/// error status, or whose messages the descriptors do not describe, are left out.
package enum GRPCEndpoints {
    package static func interactions(of conversations: [Conversation], schema: ProtoSchema) -> [Interaction] {
        var interactions: [Interaction] = []
        for call in conversations where call.grpc != nil {
            guard case .closed(_, let code, _) = call.end, code == 0 else { continue }
            let path = GRPCCallText.path(of: call)
            let request = call.messages.first { $0.direction == .client && $0.kind == .binary }
                .flatMap { schema.jsonValue($0.payload, path: path, direction: .request) }
            for message in call.messages where message.direction == .server && message.kind == .binary {
                guard let response = schema.jsonValue(message.payload, path: path, direction: .response) else { continue }
                interactions.append(
                    Interaction(
                        cassette: call.cassette, method: .post, url: path, key: call.key, sequence: interactions.count,
                        requestHeaders: [.contentType: "application/json"], requestBody: request.map { $0.jsonData() }, statusCode: 200,
                        responseHeaders: [.contentType: "application/json"], responseBody: response.jsonData(), recordedAt: call.recordedAt))
            }
        }
        return interactions
    }
}
