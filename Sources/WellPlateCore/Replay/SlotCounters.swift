import Synchronization

/// The sequence position and hit count of every loaded slot, as atomics in one allocation, so the
/// replay hot path counts without a lock from any number of threads. A slot's two counters share
/// a cache line: the thread that takes a position also counts the hit.
///
/// `@unchecked Sendable`: `storage` is allocated and initialized in `init`, before the instance is
/// shared, and freed in `deinit`, after the last reference is gone; in between every access goes
/// through an `Atomic`, which is safe from any thread.
final class SlotCounters: @unchecked Sendable {
    private let storage: UnsafeMutablePointer<Atomic<Int>>
    private let count: Int

    init(count: Int) {
        self.count = count * 2
        storage = .allocate(capacity: max(1, self.count))
        for offset in 0..<self.count {
            (storage + offset).initialize(to: Atomic(0))
        }
    }

    deinit {
        storage.deinitialize(count: count)
        storage.deallocate()
    }

    /// The slot's position before this call, moved on by one: each caller gets its own.
    func takePosition(_ slot: Int) -> Int {
        storage[2 * slot].wrappingAdd(1, ordering: .relaxed).oldValue
    }

    func countReplayed(_ slot: Int) {
        storage[2 * slot + 1].wrappingAdd(1, ordering: .relaxed)
    }

    func served(_ slot: Int) -> Int {
        storage[2 * slot].load(ordering: .relaxed)
    }

    func replayed(_ slot: Int) -> Int {
        storage[2 * slot + 1].load(ordering: .relaxed)
    }

    /// Recordings added live count as served: the position moves past them unless it already has.
    func raiseServed(_ slot: Int, to minimum: Int) {
        var current = storage[2 * slot].load(ordering: .relaxed)
        while current < minimum {
            let (exchanged, original) = storage[2 * slot].compareExchange(expected: current, desired: minimum, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    /// A key whose recordings were replaced starts again, with `served` already served.
    func reset(_ slot: Int, served: Int) {
        storage[2 * slot].store(served, ordering: .relaxed)
        storage[2 * slot + 1].store(0, ordering: .relaxed)
    }
}
