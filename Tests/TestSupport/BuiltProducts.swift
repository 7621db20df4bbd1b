import Foundation
import WellPlateCore
import WellPlateNetworking

/// Finds executables built by SwiftPM next to the running test binary.
package enum BuiltProducts {
    /// The path of the product `name` (e.g. `sample-api`) in the build directory of the tests.
    package static func executable(named name: String) throws -> String {
        let fileManager = FileManager.default
        var searched: [String] = []
        for start in startingPoints() {
            // On Linux the test binary sits in the build directory; on macOS it is three levels
            // deep inside the .xctest bundle, so walk up a few levels.
            var directory = URL(fileURLWithPath: start).deletingLastPathComponent()
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent(name).path
                searched.append(directory.path)
                if fileManager.isExecutableFile(atPath: candidate) { return candidate }
                directory.deleteLastPathComponent()
            }
        }
        throw ChildProcessError(
            "\(name) was not found next to the test binary (looked in \(searched.joined(separator: ", "))); build it with 'swift build --product \(name)'"
        )
    }

    private static func startingPoints() -> [String] {
        var paths: [String] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            paths.append(exe)
        }
        if let first = CommandLine.arguments.first {
            paths.append(URL(fileURLWithPath: first).standardizedFileURL.resolvingSymlinksInPath().path)
        }
        return paths
    }
}
