import Foundation
import WellPlateCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files `cassette merge` reads and replaces: what it refuses before reading anything, the
/// temporary file the result is built in, and how that file takes OURS's place.
package enum MergeFiles {
    /// Why an input cannot be merged, or `nil` when it may be read. BASE may be an empty file (no
    /// common ancestor); OURS and THEIRS never: an empty or cut-off side would otherwise read as
    /// "every recording deleted".
    package static func refusal(of path: String, role: String, mayBeEmpty: Bool) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else {
            return "\(role) \(path) cannot be read (\(String(cString: strerror(errno)))); check the path"
        }
        if (status.st_mode & S_IFMT) == S_IFDIR { return "\(role) \(path) is a directory, not a cassette store" }
        if status.st_size == 0 && !mayBeEmpty {
            return "\(role) \(path) is empty, not a cassette store; a truncated checkout? restore it (git checkout) and merge again"
        }
        return nil
    }

    /// Why OURS cannot be replaced, or `nil`: a file without write permission is refused even
    /// for root (who could rename over it), as is one the kernel will not let this user write.
    package static func replacementRefusal(of path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        if status.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH) == 0 || access(path, W_OK) != 0 {
            return "OURS \(path) is read-only, so the merge will not replace it; make it writable (chmod u+w) and merge again"
        }
        return nil
    }

    /// The prefix of every temporary file a merge of `ours` makes beside it.
    static func temporaryPrefix(for ours: String) -> String {
        let target = URL(fileURLWithPath: ours)
        return target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).merge-").path
    }

    /// A new temporary file name beside `ours`, carrying this process's id, so a later merge can
    /// tell a killed merge's leftovers from a running one's.
    package static func temporaryPath(for ours: String) -> String {
        StaleTemporaries.name(prefix: temporaryPrefix(for: ours))
    }

    /// Removes what killed merges of `ours` left beside it (`StaleTemporaries`); returns the
    /// names removed.
    @discardableResult
    package static func removeStaleTemporaries(for ours: String) -> [String] {
        StaleTemporaries.remove(prefix: temporaryPrefix(for: ours))
    }

    /// Gives `temporary` the permissions and owner of `ours`, so the result replaces it as it was.
    package static func copyOwnership(from ours: String, to temporary: String) throws(CLIError) {
        var status = stat()
        guard stat(ours, &status) == 0 else { return }
        guard chmod(temporary, status.st_mode & 0o7777) == 0 else {
            throw CLIError("cannot give the merged store the permissions of \(ours) (\(String(cString: strerror(errno)))); it is left as it was")
        }
        var mine = stat()
        if stat(temporary, &mine) == 0, mine.st_uid != status.st_uid || mine.st_gid != status.st_gid {
            guard chown(temporary, status.st_uid, status.st_gid) == 0 else {
                throw CLIError("cannot give the merged store the owner of \(ours) (\(String(cString: strerror(errno)))); it is left as it was")
            }
        }
    }
}
