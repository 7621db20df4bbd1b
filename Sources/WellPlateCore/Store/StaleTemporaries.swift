import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Temporary files named `PREFIX` + `PID-UUID` (with SQLite's `-wal`, `-shm` and `-journal`
/// beside them) that a killed process left behind: store creation and `merge` build files under
/// such names and remove them themselves, unless killed in between.
package enum StaleTemporaries {
    /// Removes the files named `prefix` + `PID-UUID[-wal|-shm|-journal]` whose process is gone,
    /// never another name and never a running process's file; returns the names removed.
    @discardableResult
    package static func remove(prefix: String) -> [String] {
        let directory = (prefix as NSString).deletingLastPathComponent
        let namePrefix = (prefix as NSString).lastPathComponent
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory) else { return [] }
        var removed: [String] = []
        for name in names where name.hasPrefix(namePrefix) {
            guard let owner = owner(of: String(name.dropFirst(namePrefix.count))), !isRunning(owner) else { continue }
            if (try? FileManager.default.removeItem(atPath: (directory as NSString).appendingPathComponent(name))) != nil { removed.append(name) }
        }
        return removed
    }

    /// `PREFIX` + `PID-UUID`: a new name for this process.
    package static func name(prefix: String) -> String {
        prefix + "\(getpid())-\(UUID().uuidString)"
    }

    /// The process id in `PID-UUID[-wal|-shm|-journal]`, or nil for a name not made by `name(prefix:)`.
    private static func owner(of rest: String) -> pid_t? {
        var rest = Substring(rest)
        for suffix in ["-wal", "-shm", "-journal"] where rest.hasSuffix(suffix) {
            rest = rest.dropLast(suffix.count)
        }
        guard let dash = rest.firstIndex(of: "-"), let pid = pid_t(rest[..<dash]), pid > 0,
            UUID(uuidString: String(rest[rest.index(after: dash)...])) != nil
        else { return nil }
        return pid
    }

    private static func isRunning(_ pid: pid_t) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }
}
