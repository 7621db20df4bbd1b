import GRPCCore

/// grpc-swift's serializer and deserializer for `ProtoMessage`: the message's wire bytes as they
/// are, so no protoc-generated code is needed.
struct ProtoMessageCoder: MessageSerializer, MessageDeserializer {
    func serialize<Bytes: GRPCContiguousBytes>(_ message: ProtoMessage) throws -> Bytes {
        Bytes(message.encoded)
    }

    func deserialize<Bytes: GRPCContiguousBytes>(_ serializedMessageBytes: Bytes) throws -> ProtoMessage {
        try ProtoMessage(decoding: serializedMessageBytes.withUnsafeBytes { Array($0) })
    }
}
