import Foundation

extension Redactor {
    /// The JSON body with the value of every configured field (at any depth) replaced by
    /// `"REDACTED"` in place: every other byte stays as it was (key order, number spelling,
    /// whitespace, escapes). Adds the replaced values (strings and numbers, also inside a
    /// replaced object or array) to `secrets`. Returns `body` when nothing needed replacing and
    /// `nil` when the body is not JSON.
    func redact(jsonBody body: Data, collecting secrets: inout SecretValues) -> Data? {
        var ranges: [Range<Int>] = []
        var found = SecretValues()
        let isJSON = JSONSpan.walk(body) { span in
            guard let depth = secretFieldDepth(span.path) else { return }
            switch span.kind {
            case .string(let text): found.insert(text)
            case .number(let text): found.insert(text)
            case .literal, .container: break
            }
            // The value of the secret field itself (not one inside it) is what gets replaced.
            if depth == span.path.count - 1, span.kind != .string(Self.placeholder) {
                ranges.append(span.range)
            }
        }
        guard isJSON else { return nil }
        secrets.formUnion(found)
        guard !ranges.isEmpty else { return body }
        // Children come before their container; keep only the outermost ranges.
        ranges.sort { $0.lowerBound != $1.lowerBound ? $0.lowerBound < $1.lowerBound : $0.count > $1.count }
        var outermost: [Range<Int>] = []
        for range in ranges where outermost.last.map({ !$0.contains(range.lowerBound) }) ?? true {
            outermost.append(range)
        }
        var result = Data()
        result.reserveCapacity(body.count)
        var copied = body.startIndex
        let quoted = Data(("\"" + Self.placeholder + "\"").utf8)
        for range in outermost {
            result.append(body[copied..<(body.startIndex + range.lowerBound)])
            result.append(quoted)
            copied = body.startIndex + range.upperBound
        }
        result.append(body[copied...])
        return result
    }

    /// The index in `path` of the first key that names a secret field, if any.
    private func secretFieldDepth(_ path: [JSONPathComponent]) -> Int? {
        path.firstIndex { component in
            if case .key(let key) = component { return jsonFields.contains(key.lowercased()) }
            return false
        }
    }
}
