import Foundation
import HTTPTypes
import WellPlateCore

/// gRPC methods as `schema` and `diff` see them: each method an endpoint, `POST
/// /package.Service/Method`, whose request and response bodies are its messages as protobuf JSON.
/// One recording per call, as an HTTP exchange is one: its response messages travel as a JSON
/// text sequence (`application/json-seq`, RFC 7464), each message a sample of the response type,
/// so a stream of three messages is one recording with three samples and a method's count is its
/// calls. A field added, removed or retyped upstream is then drift like an endpoint's. Calls that
/// ended with an error status (as an HTTP endpoint's non-2xx answers), or none of whose response
/// messages the descriptors describe, are left out.
package enum GRPCEndpoints {
    package static func interactions(of conversations: [Conversation], schema: ProtoSchema) -> [Interaction] {
        var interactions: [Interaction] = []
        for call in conversations where call.grpc != nil {
            guard case .closed(_, let code, _) = call.end, code == 0 else { continue }
            let path = GRPCCallText.path(of: call)
            let request = call.messages.first { $0.direction == .client && $0.kind == .binary }
                .flatMap { schema.jsonValue($0.payload, path: path, direction: .request) }
            let responses = call.messages.filter { $0.direction == .server && $0.kind == .binary }
                .compactMap { schema.jsonValue($0.payload, path: path, direction: .response) }
            guard !responses.isEmpty else { continue }
            interactions.append(
                Interaction(
                    cassette: call.cassette, method: .post, url: path, key: call.key, sequence: call.sequence,
                    requestHeaders: [.contentType: "application/json"], requestBody: request.map { $0.jsonData() }, statusCode: 200,
                    responseHeaders: [.contentType: JSONBodies.jsonSequenceMediaType], responseBody: JSONBodies.jsonSequence(responses),
                    recordedAt: call.recordedAt))
        }
        return interactions
    }
}
