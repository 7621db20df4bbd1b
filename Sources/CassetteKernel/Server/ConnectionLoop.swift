import NIOCore

/// What the kernel hands a listener's pipeline for each new connection: where its event loop's
/// request-log lines go, and what the listener's modules keep per event loop.
package struct ConnectionLoop: Sendable {
    /// The event loop's request-log buffer (`RequestLog`).
    package let logShard: Int
    package let storage: LoopStorage

    package init(logShard: Int, storage: LoopStorage) {
        self.logShard = logShard
        self.storage = storage
    }
}

/// One value a listener's module keeps per event loop (the replay hot path's key cache), made by
/// the first connection on the loop and shared by the loop's later ones. Read and written on its
/// event loop only.
package final class LoopStorage: Sendable {
    private let value: NIOLoopBoundBox<(any Sendable)?>

    package init(on eventLoop: any EventLoop) {
        value = .makeBoxSendingValue(nil, eventLoop: eventLoop)
    }

    /// The kept value, made with `make` the first time; on the loop only.
    package func value<Value: Sendable>(_ make: () -> Value) -> Value {
        if let kept = value.value as? Value { return kept }
        let made = make()
        value.value = made
        return made
    }
}
