import Foundation
import WellPlateCore
import WellPlateNetworking

/// Builds an `InferredSchema` from the recorded samples of one endpoint.
///
/// Rules: a string format is kept only while every string agrees on it; an object key is required
/// when every object had it; a location is nullable when any sample was `null`; array items merge
/// across all elements of all arrays, and an empty array says nothing about them.
package struct SchemaInferrer: Sendable {
    package private(set) var schema = InferredSchema()

    package init() {}

    package mutating func add(_ value: JSONValue) {
        schema.add(value)
    }

    /// Parses `data` as JSON and adds it.
    /// - Throws: `JSONParseError` when the body is not JSON; the schema is then unchanged.
    package mutating func add(json data: Data) throws(JSONParseError) {
        schema.add(try JSONValue(parsing: data))
    }

    /// The schema of all `samples`.
    package static func infer(from samples: some Sequence<JSONValue>) -> InferredSchema {
        InferredSchema(samples: samples)
    }
}

extension InferredSchema {
    /// Adds one sample value at this location.
    package mutating func add(_ value: JSONValue) {
        sampleCount += 1
        switch value {
        case .null:
            nullCount += 1
        case .bool:
            booleanCount += 1
        case .integer:
            integerCount += 1
        case .bigInteger:
            integerCount += 1
            wideIntegerCount += 1
        case .number:
            fractionalCount += 1
        case .string(let string):
            // Once strings disagree no format can come back, so skip detecting further ones.
            if stringCount == 0 {
                stringFormat = StringFormat.detect(string)
            } else if stringFormat != nil, StringFormat.detect(string) != stringFormat {
                stringFormat = nil
            }
            stringCount += 1
        case .array(let elements):
            arrayCount += 1
            guard !elements.isEmpty else { return }
            if itemStorage.isEmpty {
                itemStorage = [InferredSchema()]
            }
            for element in elements {
                itemStorage[0].add(element)
            }
        case .object(let object):
            objectCount += 1
            for (key, member) in object {
                properties[key, default: InferredSchema()].add(member)
            }
        }
    }
}
