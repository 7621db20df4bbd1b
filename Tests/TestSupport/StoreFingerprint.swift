import Crypto
import Foundation
import WellPlateCore

/// A store file and its journal siblings, hashed: equal fingerprints mean a command left the store
/// byte for byte as it was (no WAL switch, no change-counter bump, no -wal or -shm left behind).
package struct StoreFingerprint: Equatable, CustomStringConvertible {
    /// The SHA-256 of each file that exists, by suffix ("" is the store itself), in hex.
    package let digests: [String: String]

    package init(of path: String) throws {
        var digests: [String: String] = [:]
        for suffix in ["", "-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: path + suffix) {
            let data = try Data(contentsOf: URL(fileURLWithPath: path + suffix))
            digests[suffix] = SHA256.hash(data: data).hex
        }
        self.digests = digests
    }

    package var description: String {
        digests.sorted { $0.key < $1.key }.map { "\($0.key.isEmpty ? "store" : $0.key) \($0.value.prefix(12))" }.joined(separator: ", ")
    }
}
