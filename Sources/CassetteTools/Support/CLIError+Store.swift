import WellPlateCore
import WellPlateNetworking

extension CLIError {
    /// A store failure, with the flag that fixes it added: the library's messages name no flags.
    /// `storeFlag` and `cassetteFlag` are the flags that named the store and the cassette.
    package init(_ error: CassetteStoreError, storeFlag: String = "--db", cassetteFlag: String = "--cassette", exitStatus: Int32 = 1) {
        self.init(error.message + Self.hint(for: error.kind, storeFlag: storeFlag, cassetteFlag: cassetteFlag), exitStatus: exitStatus)
    }

    private static func hint(for kind: CassetteStoreError.Kind, storeFlag: String, cassetteFlag: String) -> String {
        switch kind.code {
        case .missingFile, .noRecordings: " (`cassette record`) or pass \(storeFlag) with the right path"
        case .notACassetteStore: " or pass the right \(storeFlag)"
        case .readOnly: " or pass another \(storeFlag)"
        case .locked: " (another `cassette record`?) or use another \(storeFlag)"
        case .missingCassette: "; check the \(cassetteFlag) name"
        case .corrupt, .schemaTooNew, .io: ""
        }
    }
}

extension CassetteStore {
    /// Runs `body`, then closes the store whether or not it failed (a writer checkpoints its WAL
    /// on close, so the file alone holds the result).
    package func use<T: Sendable>(_ body: @Sendable (isolated CassetteStore) throws(CassetteStoreError) -> T) throws(CLIError) -> T {
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
