import WellPlateCore
import WellPlateNetworking

/// What every sample seen at one location of a JSON document had in common: the types, string
/// formats, object properties and array items, with counts.
///
/// A schema is a summary that merges associatively and commutatively, so samples can be added one at
/// a time, in any order, or in separately built batches (`merge(_:)`), with the same result.
/// Integers and fractional numbers are counted apart; a location that had both is a `number`
/// (integers widen), never a union.
package struct InferredSchema: Sendable, Hashable {
    /// Values seen at this location, `null` included.
    package internal(set) var sampleCount = 0
    package internal(set) var nullCount = 0
    package internal(set) var booleanCount = 0
    /// Numbers written as integers (`1`, `-7`, beyond 64 bits too).
    package internal(set) var integerCount = 0
    /// Of `integerCount`, the integers beyond 64 bits: a type for them must hold more than `Int`.
    package internal(set) var wideIntegerCount = 0
    /// Numbers written with a fraction or exponent (`1.5`, `1.0`, `1e3`).
    package internal(set) var fractionalCount = 0
    package internal(set) var stringCount = 0
    /// The format every string here had; `nil` when there were no strings or they disagreed.
    package internal(set) var stringFormat: StringFormat?
    package internal(set) var arrayCount = 0
    package internal(set) var objectCount = 0
    /// Every key seen in an object here; each value's `sampleCount` is how many objects had the key.
    package internal(set) var properties: [String: InferredSchema] = [:]
    // Zero or one element: a stored optional would make the struct contain itself, while an array
    // stores its element out of line.
    var itemStorage: [InferredSchema] = []

    /// A schema that has seen nothing yet.
    package init() {}

    package init(samples: some Sequence<JSONValue>) {
        for sample in samples {
            add(sample)
        }
    }

    /// What the elements of every array here had in common; `nil` when every array was empty,
    /// so nothing is known about the items.
    package var items: InferredSchema? { itemStorage.first }

    package var isEmpty: Bool { sampleCount == 0 }

    package var isNullable: Bool { nullCount > 0 }

    /// The non-null types seen, in canonical order, integer widened to number when both occurred.
    package var nonNullTypes: [SchemaType] {
        var types: [SchemaType] = []
        if booleanCount > 0 { types.append(.boolean) }
        if fractionalCount > 0 {
            types.append(.number)
        } else if integerCount > 0 {
            types.append(.integer)
        }
        if stringCount > 0 { types.append(.string) }
        if arrayCount > 0 { types.append(.array) }
        if objectCount > 0 { types.append(.object) }
        return types
    }

    /// All types seen, `null` last.
    package var types: [SchemaType] {
        isNullable ? nonNullTypes + [.null] : nonNullTypes
    }

    /// More than one non-null type: a union such as `integer | string`.
    package var isUnion: Bool { nonNullTypes.count > 1 }

    /// Property names in Unicode code point order.
    package var propertyNames: [String] {
        properties.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Whether every object seen here had the key (possibly with `null`).
    package func isRequired(_ name: String) -> Bool {
        guard let property = properties[name] else { return false }
        return property.sampleCount == objectCount
    }

    /// The names of required properties, in code point order.
    package var requiredProperties: [String] {
        propertyNames.filter(isRequired)
    }

    /// Adds everything `other` has seen, as if its samples had been added here.
    package mutating func merge(_ other: InferredSchema) {
        if other.stringCount > 0 {
            stringFormat = stringCount == 0 || stringFormat == other.stringFormat ? other.stringFormat : nil
        }
        sampleCount += other.sampleCount
        nullCount += other.nullCount
        booleanCount += other.booleanCount
        integerCount += other.integerCount
        wideIntegerCount += other.wideIntegerCount
        fractionalCount += other.fractionalCount
        stringCount += other.stringCount
        arrayCount += other.arrayCount
        objectCount += other.objectCount
        for (name, property) in other.properties {
            properties[name, default: InferredSchema()].merge(property)
        }
        if let otherItems = other.items {
            if itemStorage.isEmpty {
                itemStorage = [otherItems]
            } else {
                itemStorage[0].merge(otherItems)
            }
        }
    }

    package func merging(_ other: InferredSchema) -> InferredSchema {
        var result = self
        result.merge(other)
        return result
    }
}

extension InferredSchema: CustomStringConvertible {
    /// The short type summary, such as `integer | string (uuid) | null`, or `unknown` for an
    /// empty schema. Used as the expected and actual sides of diff findings.
    package var description: String {
        guard !isEmpty else { return "unknown" }
        return types.map(describe).joined(separator: " | ")
    }

    /// One member of the type, with the string format when there is one: `string (date-time)`.
    package func describe(_ type: SchemaType) -> String {
        if type == .string, let stringFormat {
            return "string (\(stringFormat.rawValue))"
        }
        return type.rawValue
    }

    /// The non-null part of `description`, or `null` when only null was seen.
    var nonNullDescription: String {
        let types = nonNullTypes
        return types.isEmpty ? "null" : types.map(describe).joined(separator: " | ")
    }
}
