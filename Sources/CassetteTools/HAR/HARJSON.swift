import Foundation
import WellPlateCore

/// A JSON value inside a HAR document (a gRPC message as protobuf JSON), as an object rather than
/// a string holding one, so HAR viewers show it as a tree.
package struct HARJSON: Codable, Sendable, Equatable {
    package var value: JSONValue

    package init(_ value: JSONValue) {
        self.value = value
    }

    package static func == (lhs: HARJSON, rhs: HARJSON) -> Bool {
        lhs.value.jsonString(options: .sortedKeys) == rhs.value.jsonString(options: .sortedKeys)
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    package func encode(to encoder: any Encoder) throws {
        switch value {
        case .object(let object):
            var container = encoder.container(keyedBy: Key.self)
            for (key, member) in object.members { try container.encode(HARJSON(member), forKey: Key(stringValue: key)) }
        case .array(let items):
            var container = encoder.unkeyedContainer()
            for item in items { try container.encode(HARJSON(item)) }
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .integer(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .bigInteger(let digits):
            // Foundation's encoder has no way to write an integer beyond 64 bits as a number.
            var container = encoder.singleValueContainer()
            try container.encode(digits)
        case .number(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        }
    }

    package init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: Key.self) {
            value = .object(JSONObject(try keyed.allKeys.map { ($0.stringValue, try keyed.decode(HARJSON.self, forKey: $0).value) }))
        } else if var unkeyed = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !unkeyed.isAtEnd { items.append(try unkeyed.decode(HARJSON.self).value) }
            value = .array(items)
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                value = .null
            } else if let flag = try? single.decode(Bool.self) {
                value = .bool(flag)
            } else if let number = try? single.decode(Int64.self) {
                value = .integer(number)
            } else if let number = try? single.decode(Double.self) {
                value = .number(number)
            } else {
                value = .string(try single.decode(String.self))
            }
        }
    }
}
