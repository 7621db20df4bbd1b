import WellPlateNetworking

extension CLIError {
    /// A store failure; its message already says what to do.
    init(_ error: CassetteStoreError) {
        self.init(error.message)
    }
}

extension CassetteStore {
    /// Runs `body`, then closes the store whether or not it failed (a writer checkpoints its WAL
    /// on close, so the file alone holds the result).
    func use<T: Sendable>(_ body: @Sendable (isolated CassetteStore) throws(CassetteStoreError) -> T) throws(CLIError) -> T {
        do {
            let result = try body(self)
            try close()
            return result
        } catch {
            try? close()
            throw CLIError(error)
        }
    }
}
