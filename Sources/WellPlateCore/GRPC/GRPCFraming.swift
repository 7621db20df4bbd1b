import Foundation

/// One gRPC message as it crosses HTTP/2 DATA frames: a compressed flag, a 4-byte big-endian
/// length and the payload (the "Length-Prefixed-Message" of gRPC's HTTP/2 protocol).
package struct GRPCFrame: Sendable, Equatable {
    package var compressed: Bool
    package var payload: Data

    package init(compressed: Bool = false, payload: Data) {
        self.compressed = compressed
        self.payload = payload
    }

    /// The prefix and the payload.
    package var encoded: Data {
        var data = Data(capacity: payload.count + 5)
        data.append(compressed ? 1 : 0)
        let length = UInt32(payload.count)
        data.append(contentsOf: [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)])
        data.append(payload)
        return data
    }
}

/// Why a stream of gRPC messages could not be read, with the status gRPC answers for it.
package enum GRPCFramingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A message longer than the limit (`--grpc-max-message`): RESOURCE_EXHAUSTED.
    case tooLarge(length: Int, limit: Int)
    /// A compressed flag other than 0 or 1: INTERNAL.
    case badFlag(UInt8)
    /// The body ended inside a prefix or a message: INTERNAL.
    case truncated(missing: Int)

    package var status: GRPCStatusCode {
        switch self {
        case .tooLarge: .resourceExhausted
        case .badFlag, .truncated: .internalError
        }
    }

    package var description: String {
        switch self {
        case .tooLarge(let length, let limit):
            "a gRPC message of \(length) bytes exceeds the limit of \(limit) bytes (raise it with --grpc-max-message)"
        case .badFlag(let flag):
            "the gRPC length prefix has compressed flag \(flag) (only 0 and 1 exist): the body is not gRPC framing"
        case .truncated(let missing):
            "the gRPC body ended \(missing) bytes short of its last message: a broken length prefix"
        }
    }
}

/// Cuts gRPC messages out of DATA frames as they arrive, whatever their boundaries: a message may
/// span frames and a frame may hold several. Refuses a message over `limit` from its prefix alone,
/// before its bytes are buffered.
package struct GRPCFrameReader: Sendable {
    package let limit: Int
    private var buffer = Data()

    package init(limit: Int) { self.limit = limit }

    /// Bytes received but not yet a whole message.
    package var pendingBytes: Int { buffer.count }

    /// Adds `bytes` and returns every message now complete, in order.
    package mutating func append(_ bytes: Data) throws(GRPCFramingError) -> [GRPCFrame] {
        buffer.append(bytes)
        var frames: [GRPCFrame] = []
        while buffer.count >= 5 {
            let start = buffer.startIndex
            let flag = buffer[start]
            guard flag <= 1 else { throw .badFlag(flag) }
            let length = Int(buffer[start + 1]) << 24 | Int(buffer[start + 2]) << 16 | Int(buffer[start + 3]) << 8 | Int(buffer[start + 4])
            guard length <= limit else { throw .tooLarge(length: length, limit: limit) }
            guard buffer.count >= 5 + length else { break }
            frames.append(GRPCFrame(compressed: flag == 1, payload: Data(buffer[(start + 5)..<(start + 5 + length)])))
            buffer = Data(buffer[(start + 5 + length)...])
        }
        return frames
    }

    /// Called at the end of the stream: throws when bytes of an unfinished message remain.
    package func finish() throws(GRPCFramingError) {
        guard !buffer.isEmpty else { return }
        if buffer.count < 5 { throw .truncated(missing: 5 - buffer.count) }
        let start = buffer.startIndex
        let length = Int(buffer[start + 1]) << 24 | Int(buffer[start + 2]) << 16 | Int(buffer[start + 3]) << 8 | Int(buffer[start + 4])
        throw .truncated(missing: 5 + length - buffer.count)
    }
}
