import WellPlateCore
import WellPlateNetworking

/// The JSON Schema type names. Declaration order is the canonical order used everywhere a set of
/// types is listed (unions, type arrays), with `null` last.
package enum SchemaType: String, Sendable, Hashable, CaseIterable, Codable, Comparable {
    case boolean
    case integer
    case number
    case string
    case array
    case object
    case null

    package static func < (lhs: SchemaType, rhs: SchemaType) -> Bool {
        lhs.order < rhs.order
    }

    private var order: Int {
        switch self {
        case .boolean: 0
        case .integer: 1
        case .number: 2
        case .string: 3
        case .array: 4
        case .object: 5
        case .null: 6
        }
    }
}
