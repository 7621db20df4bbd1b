import Foundation
import Testing

@testable import WellPlateCore

/// `CassetteStoreError.Kind` is a struct over a code, so that a kind added later does not break an
/// app's `switch`; these tests pin its names, equality and matching, and the message of each
/// SQLite failure the store translates.
@Suite("CassetteStoreError")
struct CassetteStoreErrorTests {
    /// Every kind, in the order of the code, as an app names them.
    static let kinds: [CassetteStoreError.Kind] = [
        .missingFile, .notACassetteStore, .corrupt, .readOnly, .locked, .schemaTooNew, .io, .noRecordings, .missingCassette,
    ]

    @Test func eachKindIsNamedAsInCodeAndDistinct() {
        #expect(
            Self.kinds.map(\.description) == [
                "missingFile", "notACassetteStore", "corrupt", "readOnly", "locked", "schemaTooNew", "io", "noRecordings", "missingCassette",
            ])
        #expect(Set(Self.kinds).count == Self.kinds.count)
        #expect(Self.kinds.map(\.code) == CassetteStoreError.Kind.Code.allCases)
    }

    /// One SQLite failure of `code` on `path`, translated as opening the store does.
    static func translated(_ code: SQLiteError.Code, _ message: String, path: String, writing: Bool = false) -> CassetteStoreError {
        CassetteStoreError.from(SQLiteError(extendedCode: code.rawValue, message: message, path: path), path: path, writing: writing)
    }

    @Test func eachSQLiteFailureKeepsItsKindAndMessage() {
        let path = "/tmp/no-such-dir-\(UUID().uuidString)/cassettes.db"
        let cases: [(CassetteStoreError, CassetteStoreError.Kind, String)] = [
            (
                Self.translated(.notADatabase, "file is not a database", path: path), .notACassetteStore,
                "\(path) is not a cassette store (not an SQLite database); move the file away"
            ),
            (
                Self.translated(.corrupt, "database disk image is malformed", path: path), .corrupt,
                "\(path) is damaged (database disk image is malformed); restore it from version control or a backup, or record it again"
            ),
            (
                Self.translated(.readOnly, "attempt to write a readonly database", path: path), .readOnly,
                "\(path) is read-only, so nothing can be recorded into it; make it and its directory writable"
            ),
            (Self.translated(.busy, "database is locked", path: path), .locked, "\(path) is locked by another process; stop it"),
            (Self.translated(.locked, "database table is locked", path: path), .locked, "\(path) is locked by another process; stop it"),
            (
                Self.translated(.cantOpen, "unable to open database file", path: path, writing: true), .missingFile,
                "cannot create \(path): its directory does not exist or is not writable; create it or make it writable"
            ),
            (
                Self.translated(.cantOpen, "unable to open database file", path: path), .missingFile,
                "\(path) does not exist; record a session first"
            ),
            (
                Self.translated(.cantOpen, "unable to open database file", path: "/"), .io,
                "cannot open / (unable to open database file); check its permissions"
            ),
            (
                Self.translated(.full, "database or disk is full", path: path), .io,
                "the disk holding \(path) is full; free space and record again (earlier recordings are intact)"
            ),
            (Self.translated(.ioError, "disk I/O error", path: path), .io, "\(path): disk I/O error [SQLITE_IOERR]"),
        ]
        for (error, kind, message) in cases {
            #expect(error.kind == kind, "\(message)")
            #expect(error.message == message)
            #expect(error.description == message)
            #expect(error.localizedDescription == message)
            #expect(message.contains(error.path))
        }
    }

    @Test func aMissingCassetteNamesTheOnesThereAre() {
        let none = CassetteStoreError.missingCassette("dev", path: "c.db", available: [])
        #expect(none.kind == .noRecordings)
        #expect(none.message == "c.db holds no recordings; record a session first")
        let other = CassetteStoreError.missingCassette("dev", path: "c.db", available: ["ci", "staging"])
        #expect(other.kind == .missingCassette)
        #expect(other.message == "c.db has no cassette named 'dev' (cassettes: ci, staging)")
    }

    @Test func errorsAreEqualWhenKindPathMessageAndCauseAre() {
        let error = Self.translated(.corrupt, "malformed", path: "c.db")
        #expect(error == Self.translated(.corrupt, "malformed", path: "c.db"))
        #expect(error != Self.translated(.corrupt, "malformed", path: "d.db"))
        #expect(error != Self.translated(.corrupt, "truncated", path: "c.db"))
        // Same kind and message, another cause.
        #expect(CassetteStoreError(.io, path: "c.db", message: "m") != CassetteStoreError(.io, path: "c.db", message: "m", underlying: error.underlying))
        #expect(CassetteStoreError(.io, path: "c.db", message: "m") != CassetteStoreError(.locked, path: "c.db", message: "m"))
        #expect(error.kind == .corrupt)
        #expect(error.kind != .io)
    }

    /// What an app writes: a `switch` over the kind with a `default`, matched through `==`.
    static func reaction(to error: CassetteStoreError) -> String {
        switch error.kind {
        case .missingFile, .noRecordings, .missingCassette: "record first"
        case .locked: "wait"
        default: "give up"
        }
    }

    @Test func aSwitchWithADefaultMatchesEachKind() {
        let reactions = Self.kinds.map { Self.reaction(to: CassetteStoreError($0, path: "c.db", message: "m")) }
        #expect(reactions == ["record first", "give up", "give up", "give up", "wait", "give up", "give up", "record first", "record first"])
    }
}
