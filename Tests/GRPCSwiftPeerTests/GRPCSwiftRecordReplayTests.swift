import Foundation
import GRPCCore
import TestSupport
import Testing

/// A grpc-swift 2 client (grpc-swift-nio-transport, h2c) records shop.v1.Catalog's four kinds of call
/// through `cassette record` from the real grpcio server (Tests/Peers/grpc_peer.py), then replays
/// them through `cassette replay` with that server stopped, and cannot tell the two apart:
/// messages, metadata, status and trailers. What was not recorded is a gRPC error the client
/// surfaces as an `RPCError`, never a transport failure.
@Suite("grpc-swift 2 records and replays through cassette")
final class GRPCSwiftRecordReplayTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("grpc.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// The calls of one run, by name.
    private struct Calls: Equatable, Sendable {
        var get, missing, list, count, chat: GRPCCallOutcome
    }

    private static func getItem(_ id: String, quantity: Int = 0) -> ProtoMessage {
        // proto3 leaves default values out, as protobuf's own encoders do.
        ProtoMessage([(1, .string(id))] + (quantity == 0 ? [] : [(2, .int(quantity))]))
    }

    private static func chat(_ texts: [String]) -> [ProtoMessage] {
        texts.enumerated().map { turn, text in ProtoMessage([(1, .string(text))] + (turn == 0 ? [] : [(2, .int(turn))])) }
    }

    private static func run(_ shop: ShopClient) async -> Calls {
        Calls(
            get: await shop.unary("GetItem", getItem("b1", quantity: 2), metadata: ["x-client": "grpc-swift"]),
            missing: await shop.unary("GetItem", getItem("nope")),
            list: await shop.serverStreaming("ListItems", ProtoMessage([(1, .string("b"))])),
            count: await shop.clientStreaming("CountItems", ["b1", "t1", "b2"].map { getItem($0) }),
            chat: await shop.bidirectional("Chat", chat(["hi", "twice", "bye"])))
    }

    /// Records `run` through `cassette record` in front of a live grpcio server, with shop.proto's
    /// descriptors; the store is complete when this returns (the proxy stopped).
    private func record(gzip: Bool = false) async throws -> Calls {
        let directory = try TemporaryDirectory(prefix: "grpc-swift-protoset")
        let protoset = try await GRPCPeers.protoset(in: directory)
        return try await GRPCPeers.withServer(gzip: gzip) { upstream in
            try await withRecorder(upstream: upstream, store: store, arguments: ["--protoset", protoset.path]) { proxy in
                try await ShopClient.with(port: proxy.port, gzip: gzip) { shop in await Self.run(shop) }
            }
        }
    }

    @Test("unary, server, client and bidirectional streams and an error status replay offline as recorded")
    func recordThenReplayOffline() async throws {
        let recorded = try await record()

        #expect(recorded.get.code == nil, "\(recorded.get)")
        let item = try #require(recorded.get.messages.first)
        #expect(item.string(2) == "Dune")
        #expect(item.integer(3) == 1299)
        #expect(item.strings(4) == ["scifi", "classic"])
        #expect(try item.message(8)?.integer(1) == 1_700_000_000)
        #expect(recorded.get.header("x-served-by") == ["grpcio-peer"], "\(recorded.get)")
        #expect(recorded.get.trailer("x-cost") == ["2"], "\(recorded.get)")

        #expect(recorded.missing.code == .notFound, "\(recorded.missing)")
        #expect(recorded.missing.statusMessage == "item nope does not exist")
        #expect(recorded.missing.trailer("x-reason") == ["no such item"], "\(recorded.missing)")
        #expect(Array(recorded.missing.trailingMetadata[binaryValues: "x-trace-bin"]) == [[0x00, 0x01, 0xfe]], "\(recorded.missing)")

        #expect(recorded.list.code == nil, "\(recorded.list)")
        #expect(recorded.list.messages.map { $0.string(1) } == ["b1", "b2"])
        #expect(recorded.list.messages.map { $0.string(2) } == ["Dune", "Neuromancer"])

        #expect(recorded.count.code == nil, "\(recorded.count)")
        #expect(recorded.count.messages.first?.integer(1) == 3)
        #expect(recorded.count.messages.first?.strings(2) == ["b1", "t1", "b2"])

        #expect(recorded.chat.code == nil, "\(recorded.chat)")
        #expect(recorded.chat.messages.map { $0.string(1) } == ["echo: hi", "echo: twice", "again: twice", "echo: bye"])

        // The grpcio server is stopped: only the store answers now.
        let replayed = try await withReplayer(store: store) { replayer in
            try await ShopClient.with(port: replayer.port) { shop in await Self.run(shop) }
        }
        #expect(replayed.get == recorded.get)
        #expect(replayed.missing == recorded.missing)
        #expect(replayed.list == recorded.list)
        #expect(replayed.count == recorded.count)
        #expect(replayed.chat == recorded.chat)
    }

    @Test("a call not recorded, an unknown method and a changed stream message are RPCErrors with a reason")
    func missesAreRPCErrors() async throws {
        _ = try await record()
        let (never, unknown, changed) = try await withReplayer(store: store) { replayer in
            try await ShopClient.with(port: replayer.port) { shop in
                (
                    await shop.unary("GetItem", Self.getItem("zz", quantity: 2)),
                    await shop.unary("Here", service: "shop.v1.Nothing", ProtoMessage()),
                    await shop.bidirectional("Chat", Self.chat(["hi", "thrice"]))
                )
            }
        }
        #expect(never.code == .notFound, "\(never)")
        #expect(never.statusMessage.contains(#"no recording of /shop.v1.Catalog/GetItem for request {"id":"zz","quantity":2}"#), "\(never)")
        #expect(never.statusMessage.contains("differs in id"), "\(never)")
        #expect(unknown.code == .unimplemented, "\(unknown)")
        #expect(unknown.statusMessage.contains("nothing is recorded for /shop.v1.Nothing/Here"), "\(unknown)")
        #expect(unknown.statusMessage.contains("recorded: /shop.v1.Catalog/Chat, /shop.v1.Catalog/CountItems, /shop.v1.Catalog/GetItem"), "\(unknown)")
        #expect(changed.code == .failedPrecondition, "\(changed)")
        #expect(changed.statusMessage.contains(#"expected {"text":"twice","turn":1}"#), "\(changed)")
    }

    @Test("gzip both ways: compressed calls replay to a gzip client as recorded, and uncompressed to one without gzip")
    func gzipBothWays() async throws {
        let recorded = try await record(gzip: true)
        #expect(recorded.get.header("grpc-encoding") == ["gzip"], "\(recorded.get)")
        #expect(recorded.chat.messages.count == 4, "\(recorded.chat)")
        let compressed = try await withReplayer(store: store) { replayer in
            try await ShopClient.with(port: replayer.port, gzip: true) { shop in await Self.run(shop) }
        }
        #expect(compressed == recorded)
        let plain = try await withReplayer(store: store) { replayer in
            try await ShopClient.with(port: replayer.port, gzip: false) { shop in await Self.run(shop) }
        }
        for (name, replayed, original) in [
            ("get", plain.get, recorded.get), ("missing", plain.missing, recorded.missing), ("list", plain.list, recorded.list),
            ("count", plain.count, recorded.count), ("chat", plain.chat, recorded.chat),
        ] {
            #expect(replayed.messages == original.messages, "\(name): \(replayed)")
            #expect(replayed.code == original.code && replayed.statusMessage == original.statusMessage, "\(name): \(replayed)")
            #expect(replayed.trailingMetadata == original.trailingMetadata, "\(name): \(replayed)")
            #expect(replayed.header("grpc-encoding").isEmpty, "\(name): \(replayed)")
        }
    }
}
