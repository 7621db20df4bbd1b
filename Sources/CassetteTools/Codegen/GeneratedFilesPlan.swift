import Foundation
import WellPlateCore
import WellPlateNetworking

/// The files one generation run produces in one directory, compared with what is there: written
/// only when their bytes change; generated files (those starting with the generator's marker)
/// that the run no longer produces are stale and removed. Files without the marker are never
/// touched, so the directory may hold hand-written code too.
package struct GeneratedFilesPlan {
    package struct Change {
        package enum Kind: String {
            case changed, missing, stale
        }

        var kind: Kind
        var typeName: String
        var path: String

        package var line: String {
            let label = kind.rawValue
            return label + String(repeating: " ", count: max(1, 9 - label.count)) + typeName + "  (" + path + ")"
        }
    }

    package let directory: String
    /// Whether generated files not in the plan are removed (the models directory) or left (tests).
    package var removesStale = true
    private(set) var files: [(name: String, contents: Data, typeName: String)] = []
    private(set) var written = 0
    private(set) var unchanged = 0
    private(set) var removed = 0

    package init(directory: String, removesStale: Bool = true) {
        self.directory = directory
        self.removesStale = removesStale
    }

    package mutating func add(_ name: String, contents: String, typeName: String) {
        files.append((name, Data(contents.utf8), typeName))
    }

    private var folder: URL { URL(fileURLWithPath: directory, isDirectory: true) }

    private func shown(_ name: String) -> String {
        (directory.hasSuffix("/") ? directory : directory + "/") + name
    }

    /// Generated `.swift` files in the directory that the plan does not produce.
    private func staleFiles() -> [String] {
        guard removesStale, let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        let planned = Set(files.map(\.name))
        return names.filter { name in
            guard name.hasSuffix(".swift"), !planned.contains(name),
                let handle = FileHandle(forReadingAtPath: shown(name))
            else { return false }
            defer { try? handle.close() }
            let head = (try? handle.read(upToCount: SwiftModelGenerator.marker.utf8.count)) ?? Data()
            return head == Data(SwiftModelGenerator.marker.utf8)
        }.sorted()
    }

    /// What `apply` would do, without doing it.
    package func changes() throws(CLIError) -> [Change] {
        var changes: [Change] = []
        for file in files {
            let url = folder.appendingPathComponent(file.name)
            guard let existing = try? Data(contentsOf: url) else {
                changes.append(Change(kind: .missing, typeName: file.typeName, path: shown(file.name)))
                continue
            }
            if existing != file.contents {
                changes.append(Change(kind: .changed, typeName: file.typeName, path: shown(file.name)))
            }
        }
        for name in staleFiles() {
            changes.append(Change(kind: .stale, typeName: String(name.dropLast(".swift".count)), path: shown(name)))
        }
        return changes
    }

    /// Writes changed and missing files, removes stale ones; one line per file.
    package mutating func apply() throws(CLIError) -> [String] {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw CLIError("cannot create \(directory) (\(error.localizedDescription)); check that its parent is writable")
        }
        var lines: [String] = []
        for file in files {
            let url = folder.appendingPathComponent(file.name)
            if (try? Data(contentsOf: url)) == file.contents {
                unchanged += 1
                lines.append("unchanged \(shown(file.name))")
                continue
            }
            do {
                try file.contents.write(to: url, options: .atomic)
            } catch {
                throw CLIError("cannot write \(shown(file.name)) (\(error.localizedDescription)); check that \(directory) is writable")
            }
            written += 1
            lines.append("wrote     \(shown(file.name))")
        }
        for name in staleFiles() {
            do {
                try FileManager.default.removeItem(atPath: shown(name))
            } catch {
                throw CLIError("cannot remove the stale \(shown(name)) (\(error.localizedDescription)); delete it by hand")
            }
            removed += 1
            lines.append("removed   \(shown(name))")
        }
        return lines
    }

    package var summary: String {
        "\(written) written, \(unchanged) unchanged, \(removed) removed"
    }
}
