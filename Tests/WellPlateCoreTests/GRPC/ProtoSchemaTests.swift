import Foundation
import TestSupport
import Testing

@testable import WellPlateCore

/// Messages encoded by protobuf itself (grpcio-tools' Python runtime) read back through a protoset
/// that protoc wrote: the JSON must be protobuf's own JSON of the same message.
@Suite("Protobuf schemas read at run time")
struct ProtoSchemaTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "proto-schema")
    }

    func schema() async throws -> ProtoSchema {
        try ProtoSchema(fileDescriptorSet: try Data(contentsOf: try await GRPCPeers.protoset(in: directory)))
    }

    @Test("a protoset names every method with its kind and message types")
    func methods() async throws {
        let schema = try await schema()
        #expect(
            schema.methods.keys.sorted() == ["/shop.v1.Catalog/Chat", "/shop.v1.Catalog/CountItems", "/shop.v1.Catalog/GetItem", "/shop.v1.Catalog/ListItems"])
        #expect(schema.methods["/shop.v1.Catalog/GetItem"]?.kind == "unary")
        #expect(schema.methods["/shop.v1.Catalog/ListItems"]?.kind == "server streaming")
        #expect(schema.methods["/shop.v1.Catalog/CountItems"]?.kind == "client streaming")
        #expect(schema.methods["/shop.v1.Catalog/Chat"]?.kind == "bidirectional streaming")
        #expect(schema.methods["/shop.v1.Catalog/GetItem"]?.outputType == "shop.v1.Item")
        #expect(schema.fileNames.contains("google/protobuf/timestamp.proto"))
    }

    @Test(
        "the JSON of a message is protobuf's own JSON of it",
        arguments: [
            (
                "Item",
                #"{"id":"b1","priceCents":"-5","tags":["a","b"],"labels":{"k":"v","z":"w"},"kind":"KIND_TOOL","thumbnail":"AAE=","updatedAt":"2023-11-14T22:13:20.5Z"}"#
            ),
            ("Item", #"{"name":"é ✓","priceCents":"9223372036854775807","updatedAt":"1970-01-01T00:00:00.000001Z"}"#),
            ("GetItemRequest", #"{"id":"x","quantity":-3}"#),
            ("ItemCount", #"{"count":2,"ids":["a",""]}"#),
            ("ChatMessage", #"{}"#),
        ])
    func jsonMatchesProtobuf(type: String, json: String) async throws {
        let schema = try await schema()
        let encoded = try await GRPCPeers.encode(type, json: json)
        let ours = try schema.json(of: encoded.bytes, type: "shop.v1." + type)
        #expect(ours == encoded.json, "ours: \(ours.compactJSON), protobuf's: \(encoded.json.compactJSON)")
    }

    @Test("field order and explicit defaults do not change the canonical form; a value does")
    func canonicalForm() async throws {
        let schema = try await schema()
        let path = "/shop.v1.Catalog/GetItem"
        var inOrder = ProtoWireWriter()
        inOrder.field(1, string: "b1")
        inOrder.field(2, varint: 2)
        var reversed = ProtoWireWriter()
        reversed.field(2, varint: 2)
        reversed.field(1, string: "b1")
        var withDefault = ProtoWireWriter()
        withDefault.field(1, string: "b1")
        var bare = ProtoWireWriter()
        bare.field(1, string: "b1")
        bare.field(2, varint: 0)
        #expect(
            schema.canonicalForm(of: inOrder.data, path: path, direction: .request) == schema.canonicalForm(of: reversed.data, path: path, direction: .request))
        #expect(
            schema.canonicalForm(of: withDefault.data, path: path, direction: .request) == schema.canonicalForm(of: bare.data, path: path, direction: .request))
        #expect(schema.canonicalForm(of: inOrder.data, path: path, direction: .request) != schema.canonicalForm(of: bare.data, path: path, direction: .request))
        // Without the method in the schema, bytes are compared as they are.
        #expect(ProtoSchema().canonicalForm(of: reversed.data, path: path, direction: .request) == reversed.data)
    }

    @Test("without a schema a message reads as protoc --decode_raw prints it")
    func rawText() async throws {
        let encoded = try await GRPCPeers.encode("Item", json: #"{"id":"b1","priceCents":"1299","updatedAt":"2023-11-14T22:13:20Z"}"#)
        #expect(ProtoRawText.text(of: encoded.bytes) == "1: \"b1\"\n3: 1299\n8 {\n  1: 1700000000\n}")
        #expect(ProtoRawText.text(of: Data([0x0A, 0x05, 0x01])) == nil)
    }

    @Test("a broken descriptor set is an error, not an empty schema")
    func brokenDescriptorSet() {
        #expect(throws: ProtoWireError.self) { try ProtoSchema(fileDescriptorSet: Data([0x0A, 0x7F, 0x01])) }
    }
}
