import Foundation
import WellPlateCore
import WellPlateNetworking

/// A fresh directory under the system's temporary directory, removed with its owner (a test suite
/// instance, which Swift Testing creates per test).
package final class TemporaryDirectory: Sendable {
    package let url: URL

    package init(prefix: String = "store-tests") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    package func path(_ name: String = "cassettes.db") -> String {
        url.appendingPathComponent(name).path
    }

    /// The names of the files in the directory, sorted (a store's `-wal` and `-shm` show up here).
    package func fileNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }

    /// The bytes of the file at `name`, or `nil` when there is none.
    package func bytes(_ name: String) -> Data? {
        FileManager.default.contents(atPath: path(name))
    }
}
