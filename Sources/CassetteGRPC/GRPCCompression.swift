import CompressNIO
import Foundation
import NIOCore
import WellPlateCore

/// gRPC's per-message compression (`grpc-encoding`): messages are stored and matched inflated,
/// and compressed again on replay for a client that accepts the encoding. gzip only, as grpcio
/// and grpc-swift send it; `identity` is no compression.
enum GRPCCompression {
    /// Whether `grpc-accept-encoding` (a comma-separated list) names gzip.
    static func acceptsGzip(_ acceptEncoding: String?) -> Bool {
        acceptEncoding?.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "gzip" } ?? false
    }

    /// The message inflated per `encoding`; `nil` when it does not inflate (or inflates beyond `limit`).
    static func inflate(_ frame: GRPCFrame, encoding: String?, limit: Int) -> Data? {
        guard frame.compressed else { return frame.payload }
        guard encoding?.lowercased() == "gzip" else { return nil }
        var input = ByteBuffer(bytes: frame.payload)
        guard let output = try? input.decompress(with: .gzip(), maxSize: limit) else { return nil }
        return Data(output.readableBytesView)
    }

    static func gzip(_ payload: Data) -> Data? {
        var input = ByteBuffer(bytes: payload)
        guard let output = try? input.compress(with: .gzip()) else { return nil }
        return Data(output.readableBytesView)
    }
}
