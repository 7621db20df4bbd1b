/// A parsed JSON value in canonical form: numbers as exact canonical decimal text, object members
/// sorted by the UTF-8 bytes of their keys with duplicates resolved to the last one.
/// The canonical form is described in docs/matching.md.
indirect enum CanonicalJSONValue: Sendable {
    case null
    case bool(Bool)
    /// Canonical text (`1`, `1.5`, `1e21`), so equal numbers compare equal as strings.
    case number(String)
    case string(String)
    case array([CanonicalJSONValue])
    case object([Member])

    struct Member: Sendable {
        var key: String
        var value: CanonicalJSONValue
    }
}

extension CanonicalJSONValue: Equatable {
    /// Byte-wise, unlike `String ==`, which treats canonically equivalent Unicode as equal and
    /// would disagree with the fingerprint.
    static func == (lhs: CanonicalJSONValue, rhs: CanonicalJSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(left), .bool(right)): left == right
        case let (.number(left), .number(right)): left == right
        case let (.string(left), .string(right)): left.utf8.elementsEqual(right.utf8)
        case let (.array(left), .array(right)): left == right
        case let (.object(left), .object(right)):
            left.count == right.count && zip(left, right).allSatisfy { pair in
                pair.0.key.utf8.elementsEqual(pair.1.key.utf8) && pair.0.value == pair.1.value
            }
        default: false
        }
    }
}
