/// How far a committed recording survives: the store writes through SQLite's write-ahead log
/// (WAL), and `Durability` picks when that log reaches the disk.
extension CassetteStore {
    /// When a committed recording reaches the disk; see the cases for what survives a crash or power loss.
    public enum Durability: String, Sendable, CaseIterable {
        /// WAL with `synchronous=NORMAL` (the default): a committed recording survives the
        /// process crashing or being killed (SIGKILL), since it is in the operating system's
        /// hands once committed. A power loss or operating-system crash may lose the last
        /// transactions, never the file's consistency. No fsync per commit: the log is synced at
        /// checkpoints only.
        case normal
        /// WAL with `synchronous=FULL`: the log is synced to the disk at every commit, so a
        /// committed recording also survives a power loss. Costs one fsync per transaction;
        /// recordings that arrive together share one (group commit).
        case full

        var synchronous: SQLiteConnection.Synchronous {
            switch self {
            case .normal: .normal
            case .full: .full
            }
        }
    }

    /// The `synchronous` level SQLite reports for the open connection: what `durability` set.
    func synchronousLevel() throws(CassetteStoreError) -> SQLiteConnection.Synchronous? {
        try reading { try $0.synchronous }
    }
}
