import Foundation
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// `all` deletes a key's rows from before the session with the key's first recording only. When
/// that recording fails to store, nothing may be lost or left behind: the older rows stay until a
/// later recording of the key is stored, and that one removes them.
extension RecordModeTests {
    @Test func allKeepsAKeysOlderRowsWhenItsFirstRecordingFailsAndItsNextStoredOneReplacesThem() async throws {
        try await withSampleAPI { base in
            #expect(try await session(.missing, base, "a", "a") == [1, 2])
            // A second connection makes inserts fail while the flag is set, as a full disk would.
            let saboteur = try SQLiteConnection(path: store, mode: .readWrite)
            defer { try? saboteur.close() }
            try saboteur.execute(
                """
                CREATE TABLE sabotage (on_ INTEGER);
                INSERT INTO sabotage VALUES (1);
                CREATE TRIGGER sabotage BEFORE INSERT ON interactions WHEN (SELECT on_ FROM sabotage) = 1
                BEGIN SELECT RAISE(ABORT, 'injected failure'); END;
                """)
            try await withRecordingTransport(path: store, mode: .all) { transport in
                await #expect(throws: RecordingFailure.self) { try await transport.flaky(base, "a") }
                #expect(try await stored("a").map(\.attempt) == [1, 2], "the failed first recording deleted nothing")
                try saboteur.execute("UPDATE sabotage SET on_ = 0")
                #expect(try await transport.flaky(base, "a") == 4)
                #expect(try await transport.flaky(base, "a") == 5)
            }
            #expect(try await stored("a").map(\.attempt) == [4, 5], "the first stored recording replaced the older rows")
        }
    }
}
