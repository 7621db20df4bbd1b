import Foundation
import WellPlateCore

/// Values keyed by method and path pattern, looked up with the registry's precedence: an exact
/// path first (a hash lookup), then patterns in `PathPattern.isMoreSpecific` order. Patterns are
/// kept sorted as they are inserted, so a lookup never depends on a dictionary's iteration order
/// or on the order of registration. Shared by the fixture registry and the mock client's stubs.
struct RouteTable<Value: Sendable>: Sendable {
    struct Entry: Sendable {
        var method: HTTPMethod
        var pattern: PathPattern
        var value: Value
    }

    private struct ExactKey: Hashable {
        var method: HTTPMethod
        var segments: [String]
    }

    private var exact: [ExactKey: Entry] = [:]
    /// Per method, most specific first.
    private var patterns: [HTTPMethod: [Entry]] = [:]

    var isEmpty: Bool { exact.isEmpty && patterns.isEmpty }

    var entries: [Entry] { Array(exact.values) + patterns.values.joined() }

    /// Adds an entry, replacing the one with the same method and shape (parameter names aside).
    /// Returns whether something was replaced.
    @discardableResult
    mutating func insert(_ value: Value, method: HTTPMethod, pattern: PathPattern) -> Bool {
        let entry = Entry(method: method, pattern: pattern, value: value)
        if pattern.isExact {
            let key = ExactKey(method: method, segments: pattern.shape.map { $0 ?? "" })
            return exact.updateValue(entry, forKey: key) != nil
        }
        var list = patterns[method, default: []]
        if let position = list.firstIndex(where: { $0.pattern.shape == pattern.shape }) {
            list[position] = entry
            patterns[method] = list
            return true
        }
        let position = list.firstIndex { pattern.isMoreSpecific(than: $0.pattern) } ?? list.endIndex
        list.insert(entry, at: position)
        patterns[method] = list
        return false
    }

    mutating func removeAll() {
        exact = [:]
        patterns = [:]
    }

    /// The best entry for `path`, with the parameters it captured.
    func match(_ path: RequestPath, method: HTTPMethod) -> (entry: Entry, parameters: [String: String])? {
        if let entry = exact[ExactKey(method: method, segments: path.segments)] {
            return (entry, [:])
        }
        for entry in patterns[method] ?? [] {
            if let parameters = entry.pattern.match(path) {
                return (entry, parameters)
            }
        }
        return nil
    }
}
