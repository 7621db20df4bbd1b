import Foundation

/// A fresh directory under the system's temporary directory, removed with its owner (a test suite
/// instance, which Swift Testing creates per test).
final class TemporaryDirectory: Sendable {
    let url: URL

    init(prefix: String = "store-tests") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func path(_ name: String = "cassettes.db") -> String {
        url.appendingPathComponent(name).path
    }

    /// The names of the files in the directory, sorted (a store's `-wal` and `-shm` show up here).
    func fileNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }

    /// The bytes of the file at `name`, or `nil` when there is none.
    func bytes(_ name: String) -> Data? {
        FileManager.default.contents(atPath: path(name))
    }
}
