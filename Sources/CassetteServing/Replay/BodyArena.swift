import CassetteKernel
import Foundation
import NIOCore
import WellPlateCore
import WellPlateNetworking

/// Response bodies copied into a few large buffers, each body then a slice of one. A `ByteBuffer`
/// of its own per body would be rounded up to a power of two (1.6 times the bytes for bodies of a
/// few hundred bytes). Every body is written before the first slice is taken: a write into a
/// buffer that slices share would copy it.
package struct BodyArena: Sendable {
    package struct Place: Sendable {
        fileprivate let chunk: Int
        fileprivate let start: Int
        fileprivate let length: Int
    }

    private var chunks: [ByteBuffer] = []
    private var slicing = false
    private let chunkSize: Int

    package init(chunkSize: Int = 16 << 20) {
        self.chunkSize = chunkSize
    }

    /// Copies `bytes` in; a body larger than a quarter chunk gets a buffer of its own (large
    /// allocations are mapped pages, which cost nothing for the rounding until written).
    package mutating func store(_ bytes: UnsafeRawBufferPointer) -> Place {
        precondition(!slicing, "BodyArena: every body is stored before the first slice")
        if bytes.count > chunkSize / 4 {
            var buffer = ByteBufferAllocator().buffer(capacity: bytes.count)
            buffer.writeBytes(bytes)
            chunks.append(buffer)
            return Place(chunk: chunks.count - 1, start: 0, length: bytes.count)
        }
        if chunks.last.map({ $0.writableBytes < bytes.count || $0.capacity != chunkSize }) ?? true {
            chunks.append(ByteBufferAllocator().buffer(capacity: chunkSize))
        }
        let chunk = chunks.count - 1
        let start = chunks[chunk].writerIndex
        chunks[chunk].writeBytes(bytes)
        return Place(chunk: chunk, start: start, length: bytes.count)
    }

    /// The body stored at `place`, sharing the chunk's memory.
    package mutating func slice(_ place: Place) -> ByteBuffer {
        slicing = true
        return chunks[place.chunk].getSlice(at: place.start, length: place.length)!
    }
}
