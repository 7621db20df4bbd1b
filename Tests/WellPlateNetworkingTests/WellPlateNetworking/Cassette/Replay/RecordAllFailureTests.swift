import Foundation
import Testing
@testable import WellPlateNetworking

/// `--mode all` deletes a key's rows from before the session with the key's first recording only.
/// When that recording fails to store, nothing may be lost or left behind: the older rows stay
/// until a later recording of the key is stored, and that one removes them.
@Suite("Record mode all, failed first recording")
final class RecordAllFailureTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "record-all-failure")
    }

    var store: String { directory.path() }

    func attempts(_ name: String) async throws -> [Int] {
        try await storedInteractions(store).filter { $0.key == flakyKey(name) }.map { try $0.flakyAttempt() }
    }

    @Test func aKeysOlderRowsStayUntilOneOfItsRecordingsIsStoredAndThenGo() async throws {
        try await withSampleAPI { base in
            try await withRecordingTransport(path: store, mode: .missing) { transport in
                _ = try await transport.flaky(base, "a")
                _ = try await transport.flaky(base, "a")
            }
            #expect(try await attempts("a") == [1, 2])
            // A second connection makes inserts fail while the flag is set, as a full disk would.
            let saboteur = try SQLiteConnection(path: store, mode: .readWrite)
            defer { try? saboteur.close() }
            try saboteur.execute("""
                CREATE TABLE sabotage (on_ INTEGER);
                INSERT INTO sabotage VALUES (1);
                CREATE TRIGGER sabotage BEFORE INSERT ON interactions WHEN (SELECT on_ FROM sabotage) = 1
                BEGIN SELECT RAISE(ABORT, 'injected failure'); END;
                """)
            try await withRecordingTransport(path: store, mode: .all) { transport in
                await #expect(throws: RecordingFailure.self) { try await transport.flaky(base, "a") }
                #expect(try await attempts("a") == [1, 2], "the failed first recording deleted nothing")
                try saboteur.execute("UPDATE sabotage SET on_ = 0")
                #expect(try await transport.flaky(base, "a") == 4)
                #expect(try await transport.flaky(base, "a") == 5)
            }
            #expect(try await attempts("a") == [4, 5], "the first stored recording replaced the older rows")
        }
    }
}
