import Foundation
import Synchronization
import TestSupport
import Testing
import WellPlateCore

/// The store's long operations say how far they are: once per row, against the rows in all,
/// ending with everything done.
@Suite("store progress")
struct StoreProgressTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// Every report a handler heard, from whichever thread.
    final class Reports: Sendable {
        private let heard = Mutex<[(done: Int, total: Int)]>([])

        var handler: ProgressHandler {
            { [self] done, total in heard.withLock { $0.append((done, total)) } }
        }

        var all: [(done: Int, total: Int)] { heard.withLock { $0 } }

        /// Counts reported, which must rise one by one to `total` against that same total.
        func expectEveryRow(of total: Int, from first: Int = 1, sourceLocation: SourceLocation = #_sourceLocation) {
            let reports = all.filter { $0.done > 0 || first == 0 }
            #expect(reports.map(\.done) == Array(first...total), sourceLocation: sourceLocation)
            #expect(reports.allSatisfy { $0.total == total }, sourceLocation: sourceLocation)
        }
    }

    static func interactions(_ count: Int, authorization: Bool = false) -> [Interaction] {
        (0..<count).map { index in
            Recordings.make(
                .get, "/api/items/\(index % 40)", requestHeaders: authorization ? [.authorization: "Bearer secret-\(index)-abcdef"] : [:],
                body: Recordings.json(#"{"id":\#(index)}"#))
        }
    }

    @Test("a batch write, a full read and an import report each row")
    func writeReadAndImport() async throws {
        let store = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        let written = Reports()
        try await store.record(batch: Self.interactions(300), progress: written.handler)
        written.expectEveryRow(of: 300)

        let read = Reports()
        let rows = try await store.interactions(cassette: "dev", progress: read.handler)
        #expect(rows.count == 300)
        read.expectEveryRow(of: 300, from: 0)

        let imported = Reports()
        try await store.importInteractions(Self.interactions(50), mode: .missing, progress: imported.handler)
        imported.expectEveryRow(of: 50)
        try await store.close()
    }

    @Test("redaction reports each interaction of the cassette, checked or rewritten")
    func redaction() async throws {
        let store = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        try await store.record(batch: Self.interactions(120, authorization: true))
        for apply in [false, true] {
            let reports = Reports()
            let changes = try await store.redactStored(cassette: "dev", with: .default, apply: apply, progress: reports.handler)
            #expect(changes.count == 120)
            reports.expectEveryRow(of: 120, from: 0)
        }
        try await store.close()
    }
}
