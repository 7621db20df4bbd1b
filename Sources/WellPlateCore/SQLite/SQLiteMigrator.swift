import Foundation

/// One schema change, identified by the `user_version` the database has once it is applied.
struct SQLiteMigration: Sendable {
    /// The schema version after this migration; versions start at 1 and increase.
    let version: Int
    package let apply: @Sendable (SQLiteConnection) throws -> Void

    /// A migration written as SQL (several statements allowed).
    init(version: Int, sql: String) {
        self.version = version
        self.apply = { try $0.execute(sql) }
    }

    /// A migration written as code; it runs inside the migration's transaction.
    init(version: Int, _ apply: @escaping @Sendable (SQLiteConnection) throws -> Void) {
        self.version = version
        self.apply = apply
    }
}

/// A file whose schema is newer than any migration this build knows; it is left untouched.
struct SQLiteSchemaTooNewError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database file that was refused.
    let path: String
    /// The file's `user_version`.
    let fileVersion: Int
    /// The newest version this build can migrate to.
    let supportedVersion: Int
    /// The program named in the advice to upgrade.
    let applicationName: String

    var description: String {
        "\(path) was written by a newer version of \(applicationName) (schema \(fileVersion), "
            + "this build understands \(supportedVersion)); upgrade \(applicationName)"
    }
}

/// Brings a database to the newest schema by applying, in order, each migration whose version is above
/// the file's `PRAGMA user_version`, one transaction per migration.
struct SQLiteMigrator: Sendable {
    /// In ascending version order.
    let migrations: [SQLiteMigration]
    /// Named in the error for files written by a newer build.
    let applicationName: String

    /// - Precondition: versions start at 1 or more and strictly increase (a programming error otherwise).
    init(applicationName: String = "cassette", migrations: [SQLiteMigration]) {
        var previous = 0
        for migration in migrations {
            precondition(
                migration.version > previous,
                "migration versions must start at 1 and strictly increase; \(migration.version) follows \(previous)")
            previous = migration.version
        }
        self.applicationName = applicationName
        self.migrations = migrations
    }

    /// The schema version after all migrations.
    var latestVersion: Int {
        migrations.last?.version ?? 0
    }

    /// Applies the pending migrations and returns the versions applied (empty when already current).
    ///
    /// Throws `SQLiteSchemaTooNewError`, without writing anything, when the file is newer than `latestVersion`.
    @discardableResult
    func migrate(_ connection: SQLiteConnection) throws -> [Int] {
        let startVersion = try connection.userVersion
        try refuseNewer(startVersion, connection)
        var applied: [Int] = []
        for migration in migrations where migration.version > startVersion {
            let didApply = try connection.transaction {
                // Re-read under the write lock: another process may have migrated since the check above.
                let current = try connection.userVersion
                try refuseNewer(current, connection)
                guard current < migration.version else { return false }
                try migration.apply(connection)
                try connection.setUserVersion(migration.version)
                return true
            }
            if didApply { applied.append(migration.version) }
        }
        return applied
    }

    private func refuseNewer(_ version: Int, _ connection: SQLiteConnection) throws(SQLiteSchemaTooNewError) {
        guard version > latestVersion else { return }
        throw SQLiteSchemaTooNewError(
            path: connection.path, fileVersion: version,
            supportedVersion: latestVersion, applicationName: applicationName)
    }
}

extension SQLiteSchemaTooNewError: LocalizedError {
    var errorDescription: String? { description }
}
