import Foundation
import WellPlateCore
import WellPlateNetworking

/// Runs `body` with a new temporary directory holding `files` (relative path to contents), and
/// removes the directory afterwards, whether `body` returns or throws.
package func withFixturesDirectory<R>(
    _ files: [String: String] = [:],
    isolation: isolated (any Actor)? = #isolation,
    _ body: (URL) async throws -> R
) async throws -> R {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("fixtures-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    for (name, contents) in files {
        let file = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: file)
    }
    return try await body(directory)
}
