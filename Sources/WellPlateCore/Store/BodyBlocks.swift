import Foundation

/// Packs the response bodies of a cassette loaded for replay into large blocks instead of one
/// allocation each. Each body is a `Data` view of its bytes that keeps its block alive, so a
/// block is freed whole once every view of it is gone: a replay proxy that moves the bodies into
/// buffers of its own gets whole pages back, not holes between the objects that stay.
struct BodyBlocks {
    private var current: Block?
    /// Keeps `current` alive from every view of it: one closure per block, not one per body.
    private var release: Data.Deallocator = .none
    private var used = 0
    private let blockSize: Int

    init(blockSize: Int = 1 << 20) {
        self.blockSize = blockSize
    }

    mutating func copy(_ bytes: UnsafeRawBufferPointer) -> Data {
        guard !bytes.isEmpty else { return Data() }
        // Large bodies get a block of their own: packing them would waste the rest of a block.
        if bytes.count > blockSize / 4 {
            let block = Block(capacity: bytes.count)
            return Self.view(of: block, at: 0, copying: bytes, release: Self.release(keeping: block))
        }
        if current == nil || used + bytes.count > blockSize {
            let block = Block(capacity: blockSize)
            current = block
            release = Self.release(keeping: block)
            used = 0
        }
        let data = Self.view(of: current!, at: used, copying: bytes, release: release)
        used += bytes.count
        return data
    }

    private static func view(of block: Block, at offset: Int, copying bytes: UnsafeRawBufferPointer, release: Data.Deallocator) -> Data {
        let start = block.base + offset
        start.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        return Data(bytesNoCopy: start, count: bytes.count, deallocator: release)
    }

    private static func release(keeping block: Block) -> Data.Deallocator {
        .custom { _, _ in withExtendedLifetime(block) {} }
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
