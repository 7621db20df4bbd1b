import Foundation
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// Bodies loaded for replay share large blocks; each stays intact and readable for as long as
/// anyone holds it, whatever happens to the loader or to the other bodies.
@Suite("Body blocks")
struct BodyBlocksTests {
    func bytes(_ count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) &+ seed }
    }

    @Test func everyBodyKeepsItsBytesAfterTheLoaderIsGone() {
        let sizes = [0, 1, 14, 15, 200, 1_000, 40_000, 300_000, 700, 5_000_000, 3]
        var kept: [Data] = []
        do {
            var blocks = BodyBlocks(blockSize: 1 << 20)
            for (index, size) in sizes.enumerated() {
                let original = bytes(size, seed: UInt8(index))
                kept.append(original.withUnsafeBytes { blocks.copy($0) })
            }
        }
        for (index, size) in sizes.enumerated() {
            #expect(Array(kept[index]) == bytes(size, seed: UInt8(index)), "body \(index) of \(size) bytes")
        }
    }

    @Test func aBodyOutlivesTheOthersOfItsBlock() {
        var blocks = BodyBlocks(blockSize: 4096)
        let kept = bytes(100, seed: 1).withUnsafeBytes { blocks.copy($0) }
        var dropped: Data? = bytes(100, seed: 2).withUnsafeBytes { blocks.copy($0) }
        let keptStart = kept.withUnsafeBytes { Int(bitPattern: $0.baseAddress) }
        let droppedStart = dropped?.withUnsafeBytes { Int(bitPattern: $0.baseAddress) }
        #expect(droppedStart == keptStart + 100, "the two bodies share one block")

        dropped = nil
        // Had the block been freed with `dropped`, this same-sized allocation would take it over
        // and overwrite the bytes `kept` starts with.
        let reuse = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 16)
        reuse.initializeMemory(as: UInt8.self, repeating: 0xAA, count: 4096)
        defer { reuse.deallocate() }
        #expect(Array(kept) == bytes(100, seed: 1))

        var copy = kept
        copy[0] = 0xFF
        #expect(Array(kept) == bytes(100, seed: 1), "a changed copy is a copy, the block is never written again")
    }
}
