import Foundation

/// A parsed JSON document that keeps what `JSONSerialization` loses: whether a number was written
/// as an integer or with a fraction or exponent, integers beyond 64 bits, and the order of object keys.
///
/// Numbers are classified by how they are written, not by their value: `1` is `.integer`, while
/// `1.0`, `1.5` and `1e3` are `.number`. An API that writes `1.0` is serializing a floating-point
/// field, and schema inference should say "number" for it even when the value happens to be whole.
public enum JSONValue: Sendable {
    case null
    case bool(Bool)
    /// An integer literal that fits in 64 bits. `-0` is the integer 0.
    case integer(Int64)
    /// An integer literal too large for `Int64`, kept as written (optional `-` and digits) so it
    /// survives a round trip exactly.
    case bigInteger(String)
    /// A number written with a fraction or an exponent.
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// An object, keys in document order.
    case object(JSONObject)
}

extension JSONValue {
    /// The value's member for `key` when it is an object, otherwise `nil`.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// The element at `index` when the value is an array and the index is in range, otherwise `nil`.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// Whether the value is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The string when the value is a string, otherwise `nil`.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The Boolean when the value is `true` or `false`, otherwise `nil`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The value as a `Double` for `.integer`, `.bigInteger` (rounded) and `.number`.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .bigInteger(let literal): Double(literal)
        case .number(let value): value
        default: nil
        }
    }

    /// The elements when the value is an array, otherwise `nil`.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The object when the value is one, otherwise `nil`.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }
}

// Equality is semantic for objects (key order does not matter, as RFC 8259 objects are unordered)
// and strict for numbers: `.integer(1)` and `.number(1.0)` differ, because the distinction is the
// point of this type.
extension JSONValue: Hashable {
    /// Whether two values are equal: objects ignoring member order, numbers only within the same case.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.bigInteger(let a), .bigInteger(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        default: false
        }
    }

    /// Hashes the value consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value):
            hasher.combine(1)
            hasher.combine(value)
        case .integer(let value):
            hasher.combine(2)
            hasher.combine(value)
        case .bigInteger(let value):
            hasher.combine(3)
            hasher.combine(value)
        case .number(let value):
            hasher.combine(4)
            hasher.combine(value)
        case .string(let value):
            hasher.combine(5)
            hasher.combine(value)
        case .array(let value):
            hasher.combine(6)
            hasher.combine(value)
        case .object(let value):
            hasher.combine(7)
            hasher.combine(value)
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// `null`, from a `nil` literal.
    public init(nilLiteral: ()) { self = .null }
    /// A Boolean, from a `true` or `false` literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An `.integer`, from an integer literal.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A `.number`, from a floating-point literal.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// A string, from a string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array, from an array literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// Keys keep their literal order; a repeated key keeps its first position and its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements))
    }
}

extension JSONValue: CustomStringConvertible {
    /// Compact JSON, keys in document order.
    public var description: String { compactJSON }
}
