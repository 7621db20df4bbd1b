import Foundation

/// A cassette store that cannot be used as asked: names the file and says what to do.
public struct CassetteStoreError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// What went wrong, for code that reacts to some failures differently.
    public enum Kind: String, Sendable {
        case missingFile
        case notACassetteStore
        case corrupt
        case readOnly
        case locked
        case schemaTooNew
        case io
        /// The store holds no recordings at all.
        case noRecordings
        /// The store has recordings, but not in the cassette asked for.
        case missingCassette
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
