import CSQLite

extension SQLiteConnection {
    /// Runs `body` inside `BEGIN IMMEDIATE` ... `COMMIT`, so the write lock is taken up front and a
    /// busy database fails at the start rather than halfway through.
    ///
    /// When `body` throws, the transaction is rolled back and `body`'s error is rethrown unchanged.
    /// When `COMMIT` fails, the transaction is rolled back and the commit error is thrown.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try cachedStatement("BEGIN IMMEDIATE").run()
        let result: T
        do {
            result = try body()
        } catch {
            try rollback(after: error)
            throw error
        }
        do {
            try cachedStatement("COMMIT").run()
        } catch {
            try rollback(after: error)
            throw error
        }
        return result
    }

    /// Rolls back the open transaction because of `failure`.
    ///
    /// SQLite itself already rolls back on some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_BUSY,
    /// SQLITE_NOMEM); then there is nothing left to do. If an open transaction cannot be rolled back,
    /// the connection is unusable, so that error is thrown, carrying `failure` in its message.
    private func rollback(after failure: any Error) throws(SQLiteError) {
        guard isInTransaction else { return }
        do {
            try cachedStatement("ROLLBACK").run()
        } catch {
            var combined = error
            combined.message += "; the rollback was for: \(failure)"
            throw combined
        }
    }
}
