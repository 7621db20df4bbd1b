extension Redactor {
    /// `value` with every member whose key is one of `jsonFields` (compared case-insensitively,
    /// at any depth) replaced by the placeholder, as `redact(body:contentType:)` does for bytes.
    /// Works on the parsed value, so numbers keep the form they were written in.
    package func redact(json value: JSONValue) -> JSONValue {
        guard isEnabled, !jsonFields.isEmpty else { return value }
        switch value {
        case .object(let object):
            return .object(
                JSONObject(
                    object.members.map { member -> (String, JSONValue) in
                        if jsonFields.contains(member.key.lowercased()) {
                            return (member.key, .string(Self.placeholder))
                        }
                        return (member.key, redact(json: member.value))
                    }))
        case .array(let elements):
            return .array(elements.map { redact(json: $0) })
        default:
            return value
        }
    }
}
