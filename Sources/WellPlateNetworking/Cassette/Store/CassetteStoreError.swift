import Foundation

/// A cassette store that cannot be used as asked: names the file and says what to do.
public struct CassetteStoreError: Error, Sendable, CustomStringConvertible, LocalizedError {
    public enum Kind: String, Sendable {
        case missingFile
        case notACassetteStore
        case corrupt
        case readOnly
        case locked
        case schemaTooNew
        case io
    }

    public let kind: Kind
    public let path: String
    public let message: String
    /// The SQLite failure behind it, when there is one.
    public let underlying: SQLiteError?

    public init(_ kind: Kind, path: String, message: String, underlying: SQLiteError? = nil) {
        self.kind = kind
        self.path = path
        self.message = message
        self.underlying = underlying
    }

    public var description: String { message }
    public var errorDescription: String? { message }

    /// Translates an SQLite failure on `path` into advice a user can follow.
    static func from(_ error: SQLiteError, path: String, writing: Bool) -> CassetteStoreError {
        switch error.code {
        case .notADatabase:
            return CassetteStoreError(.notACassetteStore, path: path, message: "\(path) is not a cassette store (not an SQLite database); pass the right --db or move the file away", underlying: error)
        case .corrupt:
            return CassetteStoreError(.corrupt, path: path, message: "\(path) is damaged (\(error.message)); restore it from version control or a backup, or record it again", underlying: error)
        case .readOnly:
            return CassetteStoreError(.readOnly, path: path, message: "\(path) is read-only, so nothing can be recorded into it; make it and its directory writable or pass another --db", underlying: error)
        case .busy, .locked:
            return CassetteStoreError(.locked, path: path, message: "\(path) is locked by another process (another `cassette record`?); stop it or use another --db", underlying: error)
        case .cantOpen:
            if !FileManager.default.fileExists(atPath: path) {
                return CassetteStoreError(.missingFile, path: path, message: writing
                    ? "cannot create \(path): its directory does not exist or is not writable"
                    : "\(path) does not exist; record a session first (`cassette record`) or pass --db with the right path", underlying: error)
            }
            return CassetteStoreError(.io, path: path, message: "cannot open \(path) (\(error.message)); check its permissions", underlying: error)
        case .full:
            return CassetteStoreError(.io, path: path, message: "the disk holding \(path) is full; free space and record again (earlier recordings are intact)", underlying: error)
        default:
            return CassetteStoreError(.io, path: path, message: "\(path): \(error.message) [\(error.code.name)]", underlying: error)
        }
    }
}
