/// Names the first difference between two canonical bodies, for miss explanations.
enum BodyDifference {
    /// Longer values are cut, so one explanation stays one readable line.
    static let maximumValueLength = 40

    /// Field names whose values are never shown, even though a redacted body should not hold them anymore.
    private static let secretNames = Redactor.defaultJSONFields.union(Redactor.defaultQueryParameters)

    static func describe(request: CanonicalBody, recorded: CanonicalBody) -> String? {
        guard request.kind == recorded.kind else {
            return "\(request.kind.rawValue) vs \(recorded.kind.rawValue) body"
        }
        switch request.kind {
        case .json:
            guard let left = CanonicalJSON.parse(request.text), let right = CanonicalJSON.parse(recorded.text) else {
                return nil
            }
            // Integers of 22 digits and more are canonical in exponent notation, which reads back as
            // a double: two of them can parse alike although their texts (and fingerprints) differ.
            return firstDifference(left, right, path: "$", isSecret: false)
                ?? (request.text == recorded.text ? nil : "$ differs in a number beyond double precision")
        case .form:
            return formDifference(request.text, recorded.text)
        case .multipart:
            return multipartDifference(request.text, recorded.text)
        case .graphql:
            return GraphQLDifference.describe(request: request, recorded: recorded)
        }
    }

    /// The first part (one line each) that differs, by position.
    private static func multipartDifference(_ request: String, _ recorded: String) -> String? {
        let left = request.split(separator: "\n").dropFirst(), right = recorded.split(separator: "\n").dropFirst()
        for (index, (mine, theirs)) in zip(left, right).enumerated() where mine != theirs {
            return "part \(index + 1): \(mine) vs \(theirs)"
        }
        if left.count != right.count { return "\(left.count) parts vs \(right.count)" }
        return nil
    }

    // MARK: JSON

    /// Depth-first in canonical order (sorted keys, then array positions), so the answer is deterministic.
    /// Values are compared by their canonical text, byte for byte, as the fingerprint compares them.
    private static func firstDifference(_ left: JSONValue, _ right: JSONValue, path: String, isSecret: Bool) -> String? {
        if isSecret {
            return CanonicalJSON.canonicalText(of: left) == CanonicalJSON.canonicalText(of: right) ? nil : "\(path) differs"
        }
        switch (left, right) {
        case let (.object(leftObject), .object(rightObject)):
            let leftMembers = leftObject.sortedMembers, rightMembers = rightObject.sortedMembers
            var leftIndex = 0, rightIndex = 0
            while leftIndex < leftMembers.count || rightIndex < rightMembers.count {
                if rightIndex == rightMembers.count
                    || (leftIndex < leftMembers.count
                        && leftMembers[leftIndex].key.utf8.lexicographicallyPrecedes(rightMembers[rightIndex].key.utf8))
                {
                    return "\(memberPath(path, leftMembers[leftIndex].key)) not recorded"
                }
                if leftIndex == leftMembers.count
                    || rightMembers[rightIndex].key.utf8.lexicographicallyPrecedes(leftMembers[leftIndex].key.utf8)
                {
                    return "\(memberPath(path, rightMembers[rightIndex].key)) missing"
                }
                let key = leftMembers[leftIndex].key
                if let found = firstDifference(
                    leftMembers[leftIndex].value, rightMembers[rightIndex].value,
                    path: memberPath(path, key), isSecret: secretNames.contains(key.lowercased())
                ) {
                    return found
                }
                leftIndex += 1
                rightIndex += 1
            }
            return nil
        case let (.array(leftElements), .array(rightElements)):
            for index in 0..<min(leftElements.count, rightElements.count) {
                if let found = firstDifference(leftElements[index], rightElements[index], path: "\(path)[\(index)]", isSecret: false) {
                    return found
                }
            }
            if leftElements.count < rightElements.count { return "\(path)[\(leftElements.count)] missing" }
            if leftElements.count > rightElements.count { return "\(path)[\(rightElements.count)] not recorded" }
            return nil
        default:
            let leftText = CanonicalJSON.canonicalText(of: left), rightText = CanonicalJSON.canonicalText(of: right)
            if leftText == rightText { return nil }
            return "\(path) \(rendered(leftText)) vs \(rendered(rightText))"
        }
    }

    /// `$.grams` for identifier-like keys, `$["two words"]` for the rest.
    private static func memberPath(_ path: String, _ key: String) -> String {
        let isIdentifier =
            !key.isEmpty
            && key.utf8.enumerated().allSatisfy { offset, byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "_"), UInt8(ascii: "$"):
                    true
                case UInt8(ascii: "0")...UInt8(ascii: "9"): offset > 0
                default: false
                }
            }
        if isIdentifier { return "\(path).\(key)" }
        return "\(path)[\(String(decoding: CanonicalJSON.canonicalText(of: .string(key)), as: UTF8.self))]"
    }

    private static func rendered(_ canonicalText: [UInt8]) -> String {
        shortened(String(decoding: canonicalText, as: UTF8.self))
    }

    private static func shortened(_ text: String) -> String {
        guard text.count > maximumValueLength else { return text }
        return String(text.prefix(maximumValueLength - 1)) + "…"
    }

    // MARK: Form

    private static func formDifference(_ request: String, _ recorded: String) -> String? {
        let left = KeyComparison.grouped(pairs(request)), right = KeyComparison.grouped(pairs(recorded))
        let names = Set(left.keys).union(right.keys).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for name in names {
            switch (left[name], right[name]) {
            case let (leftValues?, rightValues?) where leftValues != rightValues:
                if secretNames.contains(name.lowercased()) { return "field \(name) differs" }
                return "field \(name): \(formValues(leftValues)) vs \(formValues(rightValues))"
            case (nil, _?):
                return "field \(name) missing"
            case (_?, nil):
                return "field \(name) not recorded"
            default:
                continue
            }
        }
        return nil
    }

    private static func pairs(_ text: String) -> [RequestKey.QueryParameter] {
        text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return RequestKey.QueryParameter(name: String(parts[0]), value: parts.count > 1 ? String(parts[1]) : "")
        }
    }

    private static func formValues(_ values: [String]) -> String {
        shortened(values.count == 1 ? values[0] : "[" + values.joined(separator: ", ") + "]")
    }
}
