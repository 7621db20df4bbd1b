import Foundation

/// The canonical text of a JSON body, which its `BodyFingerprint` hashes (docs/matching.md, "Canonical
/// JSON"): parsed by `JSONValue(parsing:)`, written by `JSONWriter` without insignificant whitespace,
/// with object keys sorted by their UTF-8 bytes and numbers by decimal value.
enum CanonicalJSON {
    /// Deeper documents are treated as not JSON (hashed raw) instead of risking the stack.
    static let maximumDepth = 256

    /// The canonical text of `body`, or `nil` when `body` is not one complete JSON text.
    /// Object keys whose lower-cased form is in `ignoredFields` are left out at any depth.
    static func canonicalText(of body: Data, ignoring ignoredFields: Set<String> = []) -> [UInt8]? {
        guard let value = try? JSONValue(parsing: body, maximumDepth: maximumDepth) else { return nil }
        return canonicalText(of: value, ignoring: ignoredFields)
    }

    static func canonicalText(of value: JSONValue, ignoring ignoredFields: Set<String> = []) -> [UInt8] {
        var writer = JSONWriter(canonicalOmitting: ignoredFields)
        writer.write(value, indentation: 0)
        return writer.output
    }

    /// Reads back a canonical text (as kept in a `CanonicalBody`), `nil` if it is not JSON.
    static func parse(_ canonicalText: String) -> JSONValue? {
        try? JSONValue(parsing: canonicalText, maximumDepth: maximumDepth)
    }
}
