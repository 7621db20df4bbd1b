import Foundation
import Testing
import WellPlateCore
import WellPlateNetworking

#if canImport(Glibc)
import Glibc
#endif

/// Runs `body` while `path` cannot be written, and always makes it writable again afterwards.
///
/// The tests run as root, where permission bits do not stop writes, so the file is made immutable
/// with `chattr +i` (root with CAP_LINUX_IMMUTABLE); elsewhere `chmod 0444` does. When neither
/// makes the file unwritable, the test is skipped with the reason.
package func withReadOnlyFile<Result>(_ path: String, _ body: () async throws -> Result) async throws -> Result {
    guard let protection = await ReadOnlyProtection.apply(to: path) else {
        try Test.cancel("cannot make \(path) read-only here: chattr +i is unavailable or not permitted, and chmod does not stop this user (root) from writing")
    }
    let outcome: Swift.Result<Result, any Error>
    do {
        outcome = .success(try await body())
    } catch {
        outcome = .failure(error)
    }
    await protection.remove()
    return try outcome.get()
}

private enum ReadOnlyProtection {
    case immutable(String)
    case permissions(String)

    package static func apply(to path: String) async -> ReadOnlyProtection? {
        if geteuid() == 0, let chattr {
            if await run(chattr, ["+i", path]) == 0 {
                if !isWritable(path) { return .immutable(path) }
                _ = await run(chattr, ["-i", path])
            }
        }
        if chmod(path, 0o444) == 0 {
            if !isWritable(path) { return .permissions(path) }
            chmod(path, 0o644)
        }
        return nil
    }

    package func remove() async {
        switch self {
        case .immutable(let path):
            if let chattr = Self.chattr { _ = await Self.run(chattr, ["-i", path]) }
        case .permissions(let path):
            chmod(path, 0o644)
        }
    }

    package static let chattr = ["/usr/bin/chattr", "/bin/chattr", "/usr/sbin/chattr", "/sbin/chattr"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Whether this process can open `path` for writing, which is what SQLite will try.
    private static func isWritable(_ path: String) -> Bool {
        let descriptor = open(path, O_WRONLY)
        guard descriptor >= 0 else { return false }
        close(descriptor)
        return true
    }

    /// Runs a tool to completion and returns its exit status (-1 when it cannot start).
    private static func run(_ executable: String, _ arguments: [String]) async -> Int32 {
        let result = try? await runToCompletion(executable, arguments, cwd: URL(fileURLWithPath: "/"))
        return result?.status ?? -1
    }
}
