import Foundation

/// A cassette store that cannot be used as asked: names the file and says what to do.
public struct CassetteStoreError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// What went wrong, for code that reacts to some failures differently: a struct over a code, as
    /// async-http-client's `HTTPClientError` is, so that adding a kind does not break an app's
    /// `switch`. Compare with `==` or switch with a `default`.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// The kinds themselves; `package` so that the package's own mappings (the CLI's hints)
        /// switch over it exhaustively, while apps see only the static members.
        package enum Code: Sendable, Hashable, CaseIterable {
            case missingFile, notACassetteStore, corrupt, readOnly, locked, schemaTooNew, io, noRecordings, missingCassette
        }

        /// The code behind the kind.
        package let code: Code

        /// The kind with `code`.
        package init(_ code: Code) {
            self.code = code
        }

        /// The file does not exist (or, when creating it, its directory does not).
        public static let missingFile = Kind(.missingFile)
        /// The file is not a cassette store: a directory, an empty file, another application's
        /// database, or a store too old to read without opening it for writing first.
        public static let notACassetteStore = Kind(.notACassetteStore)
        /// The file is damaged.
        public static let corrupt = Kind(.corrupt)
        /// The file, its directory or the store as opened cannot be written, so nothing can be recorded into it.
        public static let readOnly = Kind(.readOnly)
        /// Another process holds the store.
        public static let locked = Kind(.locked)
        /// A newer version of `cassette` wrote the store.
        public static let schemaTooNew = Kind(.schemaTooNew)
        /// Any other failure to use the file (permissions, a full disk, a store already closed).
        public static let io = Kind(.io)
        /// The store holds no recordings at all.
        public static let noRecordings = Kind(.noRecordings)
        /// The store has recordings, but not in the cassette asked for.
        public static let missingCassette = Kind(.missingCassette)

        /// The kind's name, as written in code; spelled out, since an app may build without the
        /// reflection metadata that `String(describing:)` of the code would need.
        public var description: String {
            switch code {
            case .missingFile: "missingFile"
            case .notACassetteStore: "notACassetteStore"
            case .corrupt: "corrupt"
            case .readOnly: "readOnly"
            case .locked: "locked"
            case .schemaTooNew: "schemaTooNew"
            case .io: "io"
            case .noRecordings: "noRecordings"
            case .missingCassette: "missingCassette"
            }
        }
    }

    /// What went wrong.
    public let kind: Kind
    /// The store file the error is about.
    public let path: String
    /// What failed and what to do about it, naming the file.
    public let message: String
    /// The SQLite failure behind it, when there is one.
    let underlying: SQLiteError?

    init(_ kind: Kind, path: String, message: String, underlying: SQLiteError? = nil) {
        self.kind = kind
        self.path = path
        self.message = message
        self.underlying = underlying
    }

    /// The message, as printed.
    public var description: String { message }
    /// The message, for `LocalizedError`.
    public var errorDescription: String? { message }

    /// A cassette the store cannot replay: it holds no recordings, or none in `cassette`.
    /// `available` are the cassettes it does hold (with recordings, where that is what counts).
    /// The one place this message is built.
    package static func missingCassette(_ cassette: String?, path: String, available: [String]) -> CassetteStoreError {
        guard let cassette, !available.isEmpty else {
            return CassetteStoreError(.noRecordings, path: path, message: "\(path) holds no recordings; record a session first")
        }
        return CassetteStoreError(
            .missingCassette, path: path, message: "\(path) has no cassette named '\(cassette)' (cassettes: \(available.joined(separator: ", ")))")
    }

    /// Translates an SQLite failure on `path` into advice a user can follow.
    static func from(_ error: SQLiteError, path: String, writing: Bool) -> CassetteStoreError {
        switch error.code {
        case .notADatabase:
            return CassetteStoreError(
                .notACassetteStore, path: path, message: "\(path) is not a cassette store (not an SQLite database); move the file away", underlying: error)
        case .corrupt:
            return CassetteStoreError(
                .corrupt, path: path, message: "\(path) is damaged (\(error.message)); restore it from version control or a backup, or record it again",
                underlying: error)
        case .readOnly:
            return CassetteStoreError(
                .readOnly, path: path, message: "\(path) is read-only, so nothing can be recorded into it; make it and its directory writable",
                underlying: error)
        case .busy, .locked:
            return CassetteStoreError(.locked, path: path, message: "\(path) is locked by another process; stop it", underlying: error)
        case .cantOpen:
            if !FileManager.default.fileExists(atPath: path) {
                return CassetteStoreError(
                    .missingFile, path: path,
                    message: writing
                        ? "cannot create \(path): its directory does not exist or is not writable; create it or make it writable"
                        : "\(path) does not exist; record a session first", underlying: error)
            }
            return CassetteStoreError(.io, path: path, message: "cannot open \(path) (\(error.message)); check its permissions", underlying: error)
        case .full:
            return CassetteStoreError(
                .io, path: path, message: "the disk holding \(path) is full; free space and record again (earlier recordings are intact)", underlying: error)
        default:
            return CassetteStoreError(.io, path: path, message: "\(path): \(error.message) [\(error.code.name)]", underlying: error)
        }
    }
}
