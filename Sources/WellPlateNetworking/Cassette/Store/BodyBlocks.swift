import Foundation

/// Packs the response bodies of a cassette loaded for replay into large blocks instead of one
/// allocation each. Each body is a `Data` view of its bytes that keeps its block alive, so a
/// block is freed whole once every view of it is gone: a replay proxy that moves the bodies into
/// buffers of its own gets whole pages back, not holes between the objects that stay.
struct BodyBlocks {
    private var current: Block?
    private var used = 0
    private let blockSize: Int

    init(blockSize: Int = 1 << 20) {
        self.blockSize = blockSize
    }

    mutating func copy(_ bytes: UnsafeRawBufferPointer) -> Data {
        guard !bytes.isEmpty else { return Data() }
        // Large bodies get a block of their own: packing them would waste the rest of a block.
        if bytes.count > blockSize / 4 {
            return Self.view(of: Block(capacity: bytes.count), at: 0, copying: bytes)
        }
        if current == nil || used + bytes.count > blockSize {
            current = Block(capacity: blockSize)
            used = 0
        }
        let data = Self.view(of: current!, at: used, copying: bytes)
        used += bytes.count
        return data
    }

    private static func view(of block: Block, at offset: Int, copying bytes: UnsafeRawBufferPointer) -> Data {
        let start = block.base + offset
        start.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        return Data(bytesNoCopy: start, count: bytes.count, deallocator: .custom { _, _ in
            withExtendedLifetime(block) {}
        })
    }

    /// One allocation that several bodies share.
    ///
    /// `@unchecked Sendable`: each byte range of `base` is written exactly once, by the loader,
    /// before the `Data` view over that range is created, and never again; views only read their
    /// own range, so no two threads ever touch the same byte with one of them writing. The memory
    /// is freed in `deinit`, after the last view (which holds a reference) is gone.
    private final class Block: @unchecked Sendable {
        let base: UnsafeMutableRawPointer

        init(capacity: Int) {
            base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        }

        deinit {
            base.deallocate()
        }
    }
}
