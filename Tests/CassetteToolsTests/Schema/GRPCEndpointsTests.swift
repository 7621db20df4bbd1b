import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// gRPC methods as `schema` and `diff` (and the UI's Drift view) count them: a method's
/// recordings are its calls that answered, as an endpoint's are its exchanges, however many
/// messages a stream sent; each message is still a sample of the response type.
@Suite("gRPC methods as endpoints")
struct GRPCEndpointsTests {
    static func item(_ id: String, name: String? = nil, tags: [String] = []) -> Data {
        var writer = ProtoWireWriter()
        writer.field(1, string: id)
        if let name { writer.field(2, string: name) }
        for tag in tags { writer.field(4, string: tag) }
        return writer.data
    }

    static func call(_ method: String, request: Data, responses: [Data], status: Int) -> Conversation {
        let messages =
            [ConversationMessage(direction: .client, kind: .binary, payload: request, offsetMilliseconds: 0)]
            + responses.enumerated().map { ConversationMessage(direction: .server, kind: .binary, payload: $1, offsetMilliseconds: Double($0 + 1)) }
        return Conversation(
            cassette: "dev", url: "/shop.v1.Catalog/\(method)", key: "POST /shop.v1.Catalog/\(method)", requestHeaders: [:], subprotocol: nil,
            extensions: nil, messages: messages, end: .closed(by: .server, code: status, reason: ""),
            grpc: GRPCCallHeads(
                responseHeaders: status == 0 ? [:] : nil, trailers: HTTPFields([HTTPField(name: HTTPField.Name("grpc-status")!, value: String(status))])))
    }

    @Test("a method's recordings are its answered calls, not its messages; each message is a sample")
    func recordingsCountCalls() async throws {
        let directory = try TemporaryDirectory(prefix: "grpc-endpoints")
        let schema = try ProtoSchema(fileDescriptorSet: try Data(contentsOf: try await GRPCPeers.protoset(in: directory)))
        var request = ProtoWireWriter()
        request.field(1, string: "b")
        let calls = [
            Self.call("GetItem", request: Self.item("b1"), responses: [Self.item("b1", name: "Dune")], status: 0),
            Self.call("GetItem", request: Self.item("nope"), responses: [], status: 5),
            Self.call("GetItem", request: Self.item("b2"), responses: [Self.item("b2", name: "Neuromancer")], status: 0),
            // One server-streaming call of three messages, the last with a field the others lack.
            Self.call(
                "ListItems", request: request.data,
                responses: [Self.item("b1", name: "Dune"), Self.item("b2", name: "Neuromancer"), Self.item("b3", tags: ["new"])], status: 0),
        ]
        let recorded = EndpointSchemas(interactions: GRPCEndpoints.interactions(of: calls, schema: schema))
        let getItem = try #require(recorded[Endpoint(method: .post, pattern: "/shop.v1.Catalog/GetItem")])
        let listItems = try #require(recorded[Endpoint(method: .post, pattern: "/shop.v1.Catalog/ListItems")])
        #expect(getItem.recordings == 2, "two calls answered OK; the NOT_FOUND one answered nothing to infer from, as an HTTP 404 does not")
        #expect(listItems.recordings == 1, "one call, whatever its stream held")
        // Every message of the stream is a sample: `tags` came in one of three, `name` in two.
        let properties = listItems.schema.jsonSchema()["properties"]?.objectValue ?? [:]
        #expect(properties.keys.sorted() == ["id", "name", "tags"])
        #expect(listItems.schema.jsonSchema()["required"]?.arrayValue == ["id"])
        // `cassette diff` (and the Drift view, which is its comparison) prints the same count.
        let report = DriftReport.compare(fixtures: [], recorded: recorded)
        #expect(
            report.endpoints.map { "\($0.endpoint?.description ?? "-") \($0.recordings)" } == [
                "POST /shop.v1.Catalog/GetItem 2", "POST /shop.v1.Catalog/ListItems 1",
            ])
    }

    @Test("a JSON text sequence is one recording of several samples; one that does not parse is none")
    func jsonSequence() throws {
        let body = JSONBodies.jsonSequence([["a": 1], ["a": 2, "b": "x"]])
        #expect(body.first == 0x1E && body.last == 0x0A)
        var interaction = Interaction(
            cassette: "dev", method: .post, url: "/s.v1.S/M", key: "POST /s.v1.S/M", statusCode: 200,
            responseHeaders: [.contentType: JSONBodies.jsonSequenceMediaType], responseBody: body)
        #expect(JSONBodies.successSequence(of: interaction) == [["a": 1], ["a": 2, "b": "x"]])
        #expect(EndpointSchemas(interactions: [interaction])[Endpoint(method: .post, pattern: "/s.v1.S/M")]?.recordings == 1)
        interaction.responseBody = body + Data([0x1E]) + Data("{oops".utf8)
        #expect(JSONBodies.successSequence(of: interaction) == nil)
        #expect(EndpointSchemas(interactions: [interaction]).isEmpty)
    }
}
