import CSQLite
import Foundation

/// A failed SQLite call: which code SQLite returned, what it said, and on which file and SQL.
///
/// Every C result code in the SQLite layer ends up here; nothing else looks at a raw result code.
struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An SQLite primary result code (the low 8 bits of a result code).
    /// Related documentation: <https://www.sqlite.org/rescode.html>
    struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The raw primary result code.
        let rawValue: CInt

        /// The code for a raw value; pass a primary code (extended codes carry extra bits above the low 8).
        init(rawValue: CInt) {
            self.rawValue = rawValue
        }

        /// Generic error, including SQL syntax errors and missing tables.
        static let error = Code(rawValue: SQLITE_ERROR)
        /// An internal malfunction in SQLite.
        static let `internal` = Code(rawValue: SQLITE_INTERNAL)
        /// The file system refused access.
        static let permission = Code(rawValue: SQLITE_PERM)
        /// An operation was aborted, for example a statement by a rollback.
        static let abort = Code(rawValue: SQLITE_ABORT)
        /// Another connection holds a conflicting lock and the busy timeout ran out.
        static let busy = Code(rawValue: SQLITE_BUSY)
        /// A conflict inside this connection (or its shared cache), not with another process.
        static let locked = Code(rawValue: SQLITE_LOCKED)
        /// A memory allocation failed.
        static let noMemory = Code(rawValue: SQLITE_NOMEM)
        /// A write was attempted on a database that is read-only for this connection.
        static let readOnly = Code(rawValue: SQLITE_READONLY)
        /// The operation was interrupted by `sqlite3_interrupt`.
        static let interrupt = Code(rawValue: SQLITE_INTERRUPT)
        /// The operating system reported an I/O error.
        static let ioError = Code(rawValue: SQLITE_IOERR)
        /// The database file is damaged.
        static let corrupt = Code(rawValue: SQLITE_CORRUPT)
        /// Unknown file-control opcode (internal to SQLite).
        static let notFound = Code(rawValue: SQLITE_NOTFOUND)
        /// The disk (or the database's size limit) is full.
        static let full = Code(rawValue: SQLITE_FULL)
        /// The file could not be opened (missing, a directory, no permission).
        static let cantOpen = Code(rawValue: SQLITE_CANTOPEN)
        /// The locking protocol failed (rare; another process misbehaved).
        static let `protocol` = Code(rawValue: SQLITE_PROTOCOL)
        /// Not used by current SQLite versions.
        static let empty = Code(rawValue: SQLITE_EMPTY)
        /// The schema changed under a prepared statement and could not be re-prepared.
        static let schema = Code(rawValue: SQLITE_SCHEMA)
        /// A string or BLOB exceeds SQLite's size limit.
        static let tooBig = Code(rawValue: SQLITE_TOOBIG)
        /// A constraint (UNIQUE, NOT NULL, FOREIGN KEY, CHECK, ...) was violated.
        static let constraint = Code(rawValue: SQLITE_CONSTRAINT)
        /// A value's type does not fit (for example a non-integer rowid).
        static let mismatch = Code(rawValue: SQLITE_MISMATCH)
        /// The API was used incorrectly (for example a statement used after its connection closed).
        static let misuse = Code(rawValue: SQLITE_MISUSE)
        /// The file system lacks large-file support.
        static let noLargeFileSupport = Code(rawValue: SQLITE_NOLFS)
        /// An authorizer callback denied the statement.
        static let authorization = Code(rawValue: SQLITE_AUTH)
        /// Not used by current SQLite versions.
        static let format = Code(rawValue: SQLITE_FORMAT)
        /// A bind index outside the statement's parameters.
        static let range = Code(rawValue: SQLITE_RANGE)
        /// The file is not an SQLite database (or its header is destroyed).
        static let notADatabase = Code(rawValue: SQLITE_NOTADB)

        /// SQLite's own constant name, such as `SQLITE_BUSY`, so logs can be searched against its documentation.
        var name: String {
            Self.names[rawValue] ?? "SQLITE_\(rawValue)"
        }

        var description: String { name }

        private static let names: [CInt: String] = [
            SQLITE_ERROR: "SQLITE_ERROR", SQLITE_INTERNAL: "SQLITE_INTERNAL", SQLITE_PERM: "SQLITE_PERM",
            SQLITE_ABORT: "SQLITE_ABORT", SQLITE_BUSY: "SQLITE_BUSY", SQLITE_LOCKED: "SQLITE_LOCKED",
            SQLITE_NOMEM: "SQLITE_NOMEM", SQLITE_READONLY: "SQLITE_READONLY", SQLITE_INTERRUPT: "SQLITE_INTERRUPT",
            SQLITE_IOERR: "SQLITE_IOERR", SQLITE_CORRUPT: "SQLITE_CORRUPT", SQLITE_NOTFOUND: "SQLITE_NOTFOUND",
            SQLITE_FULL: "SQLITE_FULL", SQLITE_CANTOPEN: "SQLITE_CANTOPEN", SQLITE_PROTOCOL: "SQLITE_PROTOCOL",
            SQLITE_EMPTY: "SQLITE_EMPTY", SQLITE_SCHEMA: "SQLITE_SCHEMA", SQLITE_TOOBIG: "SQLITE_TOOBIG",
            SQLITE_CONSTRAINT: "SQLITE_CONSTRAINT", SQLITE_MISMATCH: "SQLITE_MISMATCH", SQLITE_MISUSE: "SQLITE_MISUSE",
            SQLITE_NOLFS: "SQLITE_NOLFS", SQLITE_AUTH: "SQLITE_AUTH", SQLITE_FORMAT: "SQLITE_FORMAT",
            SQLITE_RANGE: "SQLITE_RANGE", SQLITE_NOTADB: "SQLITE_NOTADB",
        ]
    }

    /// The primary result code; match on this.
    var code: Code
    /// The extended result code (for example `SQLITE_IOERR_SHORT_READ`), for diagnostics.
    var extendedCode: CInt
    /// SQLite's explanation, or the library's own when the failure was detected here.
    var message: String
    /// The statement that failed, when the failure belongs to one.
    var sql: String?
    /// The database file the connection uses.
    var path: String

    /// An error for an extended (or primary) result code; `code` is derived from its low 8 bits.
    init(extendedCode: CInt, message: String, sql: String? = nil, path: String) {
        self.code = Code(rawValue: extendedCode & 0xFF)
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
        self.path = path
    }

    /// Another connection (or this one, for `locked`) holds the lock; a later attempt may succeed.
    var isBusyOrLocked: Bool {
        code == .busy || code == .locked
    }

    /// The file is not a usable database: damaged, truncated, or not SQLite at all.
    var isCorruption: Bool {
        code == .corrupt || code == .notADatabase
    }

    /// One line: the file, what went wrong, the code, the SQL (shortened), and what to do when that is known.
    var description: String {
        var line = "\(path): \(Self.oneLine(message)) [\(code.name)"
        if extendedCode != code.rawValue {
            line += ", extended code \(extendedCode)"
        }
        line += "]"
        if let sql {
            line += " in `\(Self.oneLine(sql, limit: 200))`"
        }
        if let hint {
            line += "; \(hint)"
        }
        return line
    }

    private var hint: String? {
        switch code {
        case .notADatabase, .corrupt:
            "the file is damaged or not an SQLite database: restore it from a backup or delete it to start over"
        case .busy:
            "another process holds a write lock on it: close that process or retry later"
        case .cantOpen:
            "check that the file exists (or that its directory exists and is writable) and is not a directory"
        case .readOnly:
            "check the file's permissions, or open it read-write"
        case .full:
            "the disk is full: free some space and retry"
        default:
            nil
        }
    }

    private static func oneLine(_ text: String, limit: Int = .max) -> String {
        let collapsed = text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .joined(separator: " ")
        guard collapsed.count > limit else { return collapsed }
        return String(collapsed.prefix(limit)) + "…"
    }
}

extension SQLiteError: LocalizedError {
    var errorDescription: String? { description }
}

extension SQLiteError.Code {
    /// Lets `catch SQLiteError.Code.busy` match an `SQLiteError` with that primary code.
    static func ~= (pattern: SQLiteError.Code, error: any Error) -> Bool {
        (error as? SQLiteError)?.code == pattern
    }
}

extension SQLiteError {
    /// The error for `resultCode`, with SQLite's message when `db` still describes that failure.
    ///
    /// `sqlite3_errmsg` reports the most recent failure on the connection, which is not always the
    /// call being checked (`sqlite3_close_v2`, for instance, does not set it), so it is only used when
    /// the connection's recorded code matches.
    static func from(_ resultCode: CInt, db: OpaquePointer?, sql: String?, path: String) -> SQLiteError {
        var message = String(cString: sqlite3_errstr(resultCode))
        if let db, sqlite3_extended_errcode(db) == resultCode, let text = sqlite3_errmsg(db) {
            message = String(cString: text)
        }
        return SQLiteError(extendedCode: resultCode, message: message, sql: sql, path: path)
    }

    /// Failures detected by this layer rather than by SQLite, reported with the closest SQLite code.
    static func library(_ code: Code, _ message: String, sql: String? = nil, path: String) -> SQLiteError {
        SQLiteError(extendedCode: code.rawValue, message: message, sql: sql, path: path)
    }
}
