import WellPlateCore
import WellPlateNetworking

/// Swift spellings of JSON keys and path segments: `created_at` is `createdAt`, `meal-plans` is
/// `MealPlans`, `2fa` is `_2fa`, `default` is `` `default` ``.
///
/// Only ASCII letters and digits survive; every other character separates words, and so does a
/// lower-case letter followed by an upper-case one (`avatarURL` is `avatar`, `URL`) or the last
/// letter of an acronym followed by a lower-case one (`URLString` is `URL`, `String`).
package enum SwiftNaming {
    /// Words that are keywords where a declaration name appears; written in backticks.
    static let keywords: Set<String> = [
        "associatedtype", "borrowing", "break", "case", "catch", "class", "consuming", "continue",
        "default", "defer", "deinit", "do", "else", "enum", "extension", "fallthrough", "false",
        "fileprivate", "for", "func", "guard", "if", "import", "in", "init", "inout", "internal",
        "is", "let", "nil", "operator", "precedencegroup", "private", "protocol", "public",
        "repeat", "rethrows", "return", "static", "struct", "subscript", "super", "switch",
        "throw", "throws", "true", "try", "typealias", "var", "where", "while", "as", "any",
        "some", "Any",
    ]

    /// Names that even backticks do not make usable as a member (`self`, `Type`), renamed with
    /// a `Value` suffix.
    static let unusableMembers: Set<String> = ["self", "Self", "Type", "Protocol", "init", "deinit", "subscript", "super"]

    /// Type names that would shadow the standard library, Foundation or the generated code's own
    /// names; a `Model` suffix keeps them apart (`Data` is `DataModel`).
    static let reservedTypeNames: Set<String> = [
        "Any", "AnyObject", "Array", "Bool", "Character", "Codable", "CodingKey", "CodingKeys", "Data",
        "Date", "Decodable", "Decoder", "Dictionary", "Double", "Encodable", "Encoder", "Equatable",
        "Error", "Float", "Hashable", "Int", "JSONValue", "Never", "Optional", "Protocol", "Result",
        "Self", "Sendable", "Set", "String", "Type", "URL", "UUID", "Void",
    ]

    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current: [UInt8] = []
        let bytes = Array(text.utf8)
        func isUpper(_ byte: UInt8) -> Bool { byte >= 0x41 && byte <= 0x5A }
        func isLower(_ byte: UInt8) -> Bool { byte >= 0x61 && byte <= 0x7A }
        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        func flush() {
            if !current.isEmpty { words.append(String(decoding: current, as: UTF8.self)) }
            current = []
        }
        for (index, byte) in bytes.enumerated() {
            guard isUpper(byte) || isLower(byte) || isDigit(byte) else {
                flush()
                continue
            }
            if isUpper(byte), let last = current.last {
                let nextIsLower = index + 1 < bytes.count && isLower(bytes[index + 1])
                if isLower(last) || isDigit(last) || (isUpper(last) && nextIsLower) { flush() }
            }
            current.append(byte)
        }
        flush()
        return words
    }

    /// `created_at` → `createdAt`; the first word lower-cased, the others capitalized.
    static func lowerCamel(_ text: String) -> String {
        let parts = words(text)
        guard let first = parts.first else { return "" }
        return first.lowercased() + parts.dropFirst().map(capitalized).joined()
    }

    /// `meal-plans` → `MealPlans`.
    static func upperCamel(_ text: String) -> String {
        words(text).map(capitalized).joined()
    }

    static func capitalized(_ word: String) -> String {
        guard let first = word.first else { return word }
        return first.uppercased() + word.dropFirst()
    }

    /// The property name for a JSON key, with backticks where it is a keyword.
    static func propertyName(forKey key: String) -> String {
        var name = lowerCamel(key)
        if name.isEmpty { name = "field" }
        if let first = name.utf8.first, first >= 0x30 && first <= 0x39 { name = "_" + name }
        if unusableMembers.contains(name) { return name + "Value" }
        return name
    }

    /// The name as written in a declaration or a reference: keywords in backticks.
    static func escaped(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// A type name from a key or segment; `singular` for the items of an array (`meals` → `Meal`),
    /// where a word without a plural to drop gets `Item` (`data` → `DataItem`) unless `itemSuffix`
    /// is off (a resource name: `status` → `Status`).
    static func typeName(from text: String, singular: Bool = false, itemSuffix: Bool = true) -> String {
        var parts = words(text).map(capitalized)
        if parts.isEmpty { parts = ["Value"] }
        if singular {
            let last = parts.removeLast()
            let single = singularize(last)
            parts.append(single == last && itemSuffix ? last + "Item" : single)
        }
        var name = parts.joined()
        if let first = name.utf8.first, first >= 0x30 && first <= 0x39 { name = "Type" + name }
        if reservedTypeNames.contains(name) || shadowsPlatformType(name) { name += "Model" }
        return name
    }

    /// Whether a type of this name in the app's module would hide one the platform exports:
    /// every name in `PlatformTypeNames`, and `NS...` and `CF...` ones.
    package static func shadowsPlatformType(_ name: String) -> Bool {
        if PlatformTypeNames.all.contains(name) { return true }
        let utf8 = Array(name.utf8)
        guard utf8.count > 2, utf8[2] >= UInt8(ascii: "A"), utf8[2] <= UInt8(ascii: "Z") else { return false }
        return name.hasPrefix("NS") || name.hasPrefix("CF")
    }

    /// English plural to singular for the usual API nouns: `users` → `user`, `categories` →
    /// `category`, `addresses` → `address`, `status` stays. Words it does not know stay as they are.
    static func singularize(_ word: String) -> String {
        let lower = word.lowercased()
        func drop(_ count: Int, add suffix: String = "") -> String { String(word.dropLast(count)) + suffix }
        if lower.hasSuffix("ies"), lower.count > 3 { return drop(3, add: word.last!.isUppercase ? "Y" : "y") }
        for suffix in ["sses", "shes", "ches", "xes", "zzes"] where lower.hasSuffix(suffix) { return drop(2) }
        for suffix in ["ss", "us", "is"] where lower.hasSuffix(suffix) { return word }
        if lower.hasSuffix("s"), lower.count > 1 { return drop(1) }
        return word
    }
}
