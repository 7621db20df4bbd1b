import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// Files that cannot serve as a cassette store: each is a clear error naming the file and what to
/// do, never a crash and never a silently empty replay.
@Suite("Store errors")
final class StoreErrorTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "store-errors")
    }

    var store: String { directory.path() }

    /// A store of `count` recordings with 4 KB bodies, so it spans many pages.
    func makeStore(_ path: String, count: Int = 120) async throws {
        try await fillStore(
            path,
            with: (0..<count).map { index in
                Recordings.make(.get, "/api/users/\(index)", body: Data(repeating: UInt8(ascii: "a") + UInt8(index % 26), count: 4096))
            })
    }

    func storeError(_ body: @escaping () async throws -> some Any, sourceLocation: SourceLocation = #_sourceLocation) async throws -> CassetteStoreError {
        try await #require(throws: CassetteStoreError.self, sourceLocation: sourceLocation) { _ = try await body() }
    }

    /// Every way in: the store itself, replay, and a recording session.
    func errorsFromEveryEntryPoint(_ path: String) async throws -> [CassetteStoreError] {
        [
            try await storeError { try await CassetteStore.open(path: path, access: .readOnly) },
            try await storeError { try await ReplayAPIClient.open(path: path, cassette: "dev") },
            try await storeError { try await CassetteStore.open(path: path, access: .readWrite) },
            try await storeError {
                try await withRecordingTransport(path: path, mode: .missing, upstream: FixedUpstream(response: TransportResponse(statusCode: 200))) { _ in }
            },
        ]
    }

    @Test func replayingAMissingFileSaysToRecordFirstAndCreatesNothing() async throws {
        let missing = directory.path("nowhere.db")
        for error in [
            try await storeError { try await CassetteStore.open(path: missing, access: .readOnly) },
            try await storeError { try await ReplayAPIClient.open(path: missing, cassette: "dev") },
        ] {
            #expect(error.kind == .missingFile)
            #expect(error.message == "\(missing) does not exist; record a session first")
        }
        #expect(try directory.fileNames() == [])
    }

    @Test func recordingIntoAMissingDirectorySaysItCannotCreateTheFile() async throws {
        let path = directory.path("no/such/dir/cassettes.db")
        let error = try await storeError { try await CassetteStore.open(path: path, access: .readWrite) }
        #expect(error.kind == .missingFile)
        #expect(error.message == "cannot create \(path): its directory does not exist or is not writable; create it or make it writable")
    }

    @Test func aFileThatIsNotSQLiteIsRefusedUnchanged() async throws {
        let text = Data(String(repeating: "These are meeting notes, not a database.\n", count: 200).utf8)
        try text.write(to: URL(fileURLWithPath: store))
        for error in try await errorsFromEveryEntryPoint(store) {
            #expect(error.kind == .notACassetteStore)
            #expect(error.message == "\(store) is not a cassette store (not an SQLite database); move the file away")
        }
        #expect(directory.bytes("cassettes.db") == text)
    }

    @Test func aStoreWithDamagedPagesIsReportedAsDamagedNotReplayedAsEmpty() async throws {
        try await makeStore(store)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: store))
        let size = try handle.seekToEnd()
        // Every page but the first (the header and the schema): whichever tables the recordings
        // sit in, as the store grows tables (conversations since schema 6), they are damaged.
        try handle.seek(toOffset: 4096)
        try handle.write(contentsOf: Data(repeating: 0xFF, count: Int(size) - 4096))
        try handle.close()
        let error = try await storeError { try await ReplayAPIClient.open(path: self.store, cassette: "dev") }
        #expect(error.kind == .corrupt)
        #expect(error.message.hasPrefix("\(store) is damaged ("))
        #expect(error.message.hasSuffix("restore it from version control or a backup, or record it again"))
    }

    @Test func aTruncatedStoreIsReportedAsDamagedNotReplayedAsEmpty() async throws {
        try await makeStore(store)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: store))
        try handle.truncate(atOffset: try handle.seekToEnd() / 2)
        try handle.close()
        let error = try await storeError { try await ReplayAPIClient.open(path: self.store, cassette: "dev") }
        #expect(error.kind == .corrupt)
        #expect(error.message.hasPrefix("\(store) is damaged ("))
    }

    @Test func aStoreWithAnOverwrittenHeaderIsNotACassetteStore() async throws {
        try await makeStore(store, count: 2)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: store))
        try handle.write(contentsOf: Data(repeating: 0, count: 100))
        try handle.close()
        let error = try await storeError { try await ReplayAPIClient.open(path: self.store, cassette: "dev") }
        #expect(error.kind == .notACassetteStore)
        #expect(error.message.contains(store))
    }

    @Test func recordingIntoAReadOnlyFileIsRefused() async throws {
        try await makeStore(store, count: 1)
        let before = try #require(directory.bytes("cassettes.db"))
        try await withReadOnlyFile(store) {
            let errors = [
                try await storeError { try await CassetteStore.open(path: self.store, access: .readWrite) },
                try await storeError {
                    try await withRecordingTransport(path: self.store, mode: .missing, upstream: FixedUpstream(response: TransportResponse(statusCode: 200))) {
                        _ in
                    }
                },
            ]
            for error in errors {
                #expect(error.kind == .readOnly)
                #expect(error.message == "\(store) is read-only, so nothing can be recorded into it; make it and its directory writable")
            }
            // Replaying a read-only file is fine.
            let replay = try await ReplayAPIClient.open(path: store, cassette: "dev")
            #expect(replay.session.index.statistics.interactionCount == 1)
        }
        #expect(directory.bytes("cassettes.db") == before)
    }

    @Test func recordingIntoALockedStoreFailsAsLockedAfterTheBusyTimeout() async throws {
        try await makeStore(store, count: 1)
        let blocker = try SQLiteConnection(path: store, mode: .readWrite)
        try blocker.execute("BEGIN IMMEDIATE")
        let writer = try await CassetteStore.open(path: store, access: .readWrite, busyTimeout: .milliseconds(200))
        let clock = ContinuousClock()
        let started = clock.now
        let error = try await storeError {
            try await RecordingTransport.open(store: writer, cassette: "dev", upstream: FixedUpstream(response: TransportResponse(statusCode: 200)))
        }
        let waited = clock.now - started
        #expect(error.kind == .locked)
        #expect(error.message == "\(store) is locked by another process; stop it")
        // Only the lower bound is the timeout's; the upper one just catches a wait without end,
        // loosely, as a loaded machine stretches every wall-clock time.
        #expect(waited >= .milliseconds(200) && waited < .seconds(120), "waited \(waited)")
        try blocker.execute("ROLLBACK")
        try await writer.close()
        try blocker.close()
    }

    @Test func aLockTakenDuringASessionFailsTheRecordingButHandsBackTheLiveResponse() async throws {
        try await makeStore(store, count: 1)
        let writer = try await CassetteStore.open(path: store, access: .readWrite, busyTimeout: .milliseconds(100))
        let upstream = FixedUpstream(response: TransportResponse(statusCode: 200, body: Data(#"{"live":true}"#.utf8)))
        let transport = try await RecordingTransport.open(store: writer, cassette: "dev", upstream: upstream)
        let blocker = try SQLiteConnection(path: store, mode: .readWrite)
        try blocker.execute("BEGIN IMMEDIATE")
        let failure = try await #require(throws: RecordingFailure.self) {
            try await transport.send(.get, URL(string: "http://127.0.0.1:1")!, "/api/health?token=sekret-lock-77")
        }
        #expect(failure.underlying.kind == .locked)
        #expect(failure.response.body == Data(#"{"live":true}"#.utf8))
        #expect(failure.description == "the response to GET /api/health?token=\(Redactor.placeholder) was not recorded: \(failure.underlying.message)")
        try blocker.execute("ROLLBACK")
        try blocker.close()
        try await writer.close()
        #expect(try await storedInteractions(store).count == 1)
    }

    @Test func anEmptyFileIsNotACassetteStoreForReplay() async throws {
        try #require(FileManager.default.createFile(atPath: store, contents: Data()))
        for error in [
            try await storeError { try await CassetteStore.open(path: self.store, access: .readOnly) },
            try await storeError { try await ReplayAPIClient.open(path: self.store, cassette: "dev") },
        ] {
            #expect(error.kind == .notACassetteStore)
            #expect(error.message == "\(store) is empty, not a cassette store; record into it first")
        }
    }

    @Test func anEmptySQLiteDatabaseIsNotACassetteStoreForReplay() async throws {
        let connection = try SQLiteConnection(path: store, mode: .readWriteCreate)
        try connection.execute("CREATE TABLE scratch (x); DROP TABLE scratch")
        try connection.close()
        let error = try await storeError { try await ReplayAPIClient.open(path: self.store, cassette: "dev") }
        #expect(error.kind == .notACassetteStore)
        #expect(error.message == "\(store) is an empty SQLite database, not a cassette store; record into it first")
    }

    @Test func aStoreWithoutRecordingsNeverReplaysAsEmpty() async throws {
        try await CassetteStore.open(path: store, access: .readWrite).close()
        let empty = try await storeError { try await ReplayAPIClient.open(path: self.store, cassette: "dev") }
        #expect(empty.message == "\(store) holds no recordings; record a session first")
        try await fillStore(store, with: [Recordings.make(.get, "/api/health", cassette: "staging")])
        let otherCassette = try await storeError { try await ReplayAPIClient.open(path: self.store, cassette: "dev") }
        #expect(otherCassette.message == "\(store) has no cassette named 'dev' (cassettes: staging)")
    }

    @Test func anotherApplicationsDatabaseIsRefusedAndLeftUntouched() async throws {
        let connection = try SQLiteConnection(path: store, mode: .readWriteCreate)
        try connection.execute("PRAGMA journal_mode=DELETE")
        try connection.execute(
            "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES ('Ada'); CREATE TABLE orders (id INTEGER PRIMARY KEY)")
        try connection.close()
        let before = try #require(directory.bytes("cassettes.db"))
        for error in try await errorsFromEveryEntryPoint(store) {
            #expect(error.kind == .notACassetteStore)
            #expect(error.message == "\(store) is an SQLite database of another application (tables: orders, users); choose another file")
        }
        #expect(directory.bytes("cassettes.db") == before)
        #expect(try directory.fileNames() == ["cassettes.db"])
    }
}
