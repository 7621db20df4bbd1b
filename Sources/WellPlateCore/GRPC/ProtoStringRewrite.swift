import Foundation

extension ProtoSchema {
    /// `message` with each of its string fields, at any depth, replaced by what `rewrite` makes of
    /// its UTF-8 bytes, and re-encoded with the length prefixes that fit (a protobuf string changed
    /// in place would break them). Fields are found by the descriptors when the schema knows the
    /// method; otherwise, and for fields the descriptors do not name, by wire type: a
    /// length-delimited field that parses as a message is walked into, one that is valid UTF-8 is a
    /// string. Bytes fields the descriptors name are left alone. The message itself when nothing
    /// changed or it does not parse.
    package func rewritingStrings(in message: Data, path: String, direction: GRPCDirection, _ rewrite: (Data) -> Data) -> Data {
        rewritten(message, type: messageType(path: path, direction: direction), depth: 0, rewrite) ?? message
    }

    /// The rewritten message, or `nil` when nothing changed or it does not parse.
    private func rewritten(_ message: Data, type: String?, depth: Int, _ rewrite: (Data) -> Data) -> Data? {
        guard depth < 64, let fields = try? ProtoWireReader.fields(of: message) else { return nil }
        let known = type.flatMap { messages[$0] }
        var changed = false
        var writer = ProtoWireWriter()
        for (number, value) in fields {
            guard case .lengthDelimited(let bytes) = value else {
                writer.field(number, value)
                continue
            }
            var replacement: Data?
            if let field = known?.fields[number] {
                switch field.kind {
                case .string: replacement = rewrite(bytes)
                case .message: replacement = rewritten(bytes, type: field.typeName, depth: depth + 1, rewrite)
                default: replacement = nil
                }
            } else if !bytes.isEmpty, let inner = rewritten(bytes, type: nil, depth: depth + 1, rewrite) {
                replacement = inner
            } else if String(data: bytes, encoding: .utf8) != nil {
                replacement = rewrite(bytes)
            }
            if let replacement, replacement != bytes {
                changed = true
                writer.field(number, bytes: replacement)
            } else {
                writer.field(number, bytes: bytes)
            }
        }
        return changed ? writer.data : nil
    }
}
