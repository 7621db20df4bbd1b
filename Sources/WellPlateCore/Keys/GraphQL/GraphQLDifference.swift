/// Names how a GraphQL request differs from a recording of the same operation, for miss
/// explanations: `variables differ at $.id: recorded 1, got 2`.
enum GraphQLDifference {
    static func describe(request: CanonicalBody, recorded: CanonicalBody) -> String? {
        guard let mine = CanonicalJSON.parse(request.text), let theirs = CanonicalJSON.parse(recorded.text) else { return nil }
        if let mine = mine.arrayValue, let theirs = theirs.arrayValue {
            guard mine.count == theirs.count else { return "batch of \(mine.count) operations, recorded \(theirs.count)" }
            for (index, (left, right)) in zip(mine, theirs).enumerated() {
                if let found = operationDifference(left, right) { return "operation \(index + 1): \(found)" }
            }
            return nil
        }
        return operationDifference(mine, theirs)
    }

    private static func operationDifference(_ request: JSONValue, _ recorded: JSONValue) -> String? {
        let mine = request.objectValue ?? JSONObject(), theirs = recorded.objectValue ?? JSONObject()
        if mine["document"] != theirs["document"] || mine["persistedQuery"] != theirs["persistedQuery"] {
            if mine["document"] == nil || theirs["document"] == nil { return "persisted query hash vs document" }
            return "document differs"
        }
        return difference(mine["variables"] ?? .object(JSONObject()), theirs["variables"] ?? .object(JSONObject()), path: "$")
            .map { "variables differ at \($0)" }
    }

    /// The first difference, depth first in canonical (sorted) order.
    private static func difference(_ request: JSONValue, _ recorded: JSONValue, path: String) -> String? {
        switch (request.objectValue, recorded.objectValue) {
        case let (mine?, theirs?):
            let names = Set(mine.keys).union(theirs.keys).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for name in names {
                let member = JSONPath.isIdentifier(name) ? "\(path).\(name)" : "\(path)[\(text(.string(name)))]"
                switch (mine[name], theirs[name]) {
                case let (left?, right?):
                    if let found = difference(left, right, path: member) { return found }
                case (nil, _?): return "\(member): missing"
                case (_?, nil): return "\(member): not recorded"
                case (nil, nil): continue
                }
            }
            return nil
        default:
            if let mine = request.arrayValue, let theirs = recorded.arrayValue, mine.count == theirs.count {
                for (index, (left, right)) in zip(mine, theirs).enumerated() {
                    if let found = difference(left, right, path: "\(path)[\(index)]") { return found }
                }
                return nil
            }
            let left = text(request), right = text(recorded)
            return left == right ? nil : "\(path): recorded \(right), got \(left)"
        }
    }

    private static func text(_ value: JSONValue) -> String {
        let text = String(decoding: CanonicalJSON.canonicalText(of: value), as: UTF8.self)
        return text.count > BodyDifference.maximumValueLength ? String(text.prefix(BodyDifference.maximumValueLength - 1)) + "…" : text
    }
}
