import WellPlateCore

/// How the proxy serves gRPC calls: the largest message (`--grpc-max-message`, gRPC's own default
/// of 4 MiB) and the protobuf descriptors messages are decoded and matched with (the store's,
/// with `--protoset` files and `cassette.json`'s `"grpc": {"protosets": [...]}` added at start).
package struct GRPCOptions: Sendable {
    package var maxMessage = 4 * 1024 * 1024
    /// `--grpc-timing`: the factor applied to the recorded delays of replayed server messages
    /// (1: as recorded, 0: at once), as `--ws-timing` is for WebSocket conversations.
    package var timingScale: Double = 1
    /// The `FileDescriptorSet` files to read at start and keep in the store.
    package var protosets: [String] = []
    /// The schema the proxy uses: the store's descriptors and the protosets'.
    package var schema = ProtoSchema()

    package init() {}
}
