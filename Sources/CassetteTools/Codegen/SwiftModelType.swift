import WellPlateCore
import WellPlateNetworking

/// The Swift type generated for one location of a JSON document.
indirect enum SwiftModelType: Hashable, Sendable {
    case bool
    case int
    /// Integers beyond 64 bits: `Decimal` decodes them exactly (up to 38 digits), where `Int`
    /// fails and `Double` rounds.
    case decimal
    case double
    case string
    /// A `date-time` string, decoded by the client's ISO-8601 date strategy.
    case date
    /// The generated `JSONValue` enum: a union of types, or a location nothing is known about.
    case json
    case array(SwiftModelType)
    /// A generated struct, identified by its shape until names are given.
    case model(String)
    case optional(SwiftModelType)

    /// The type as written in a declaration, with struct names from `names`.
    func spelled(_ names: [String: String]) -> String {
        switch self {
        case .bool: "Bool"
        case .int: "Int"
        case .decimal: "Decimal"
        case .double: "Double"
        case .string: "String"
        case .date: "Date"
        case .json: "JSONValue"
        case .array(let element): "[\(element.spelled(names))]"
        case .model(let shape): names[shape] ?? "JSONValue"
        case .optional(let wrapped): wrapped.spelled(names) + "?"
        }
    }

    /// The identity used to merge same-shape structs: the shape key for models.
    var shapeKey: String {
        switch self {
        case .bool: "B"
        case .int: "I"
        case .decimal: "N"
        case .double: "D"
        case .string: "S"
        case .date: "T"
        case .json: "J"
        case .array(let element): "[\(element.shapeKey)]"
        case .model(let shape): "{\(shape)}"
        case .optional(let wrapped): wrapped.shapeKey + "?"
        }
    }

    var usesJSONValue: Bool {
        switch self {
        case .json: true
        case .array(let element), .optional(let element): element.usesJSONValue
        default: false
        }
    }

    /// The structs referenced, outermost first.
    var models: [String] {
        switch self {
        case .model(let shape): [shape]
        case .array(let element), .optional(let element): element.models
        default: []
        }
    }
}

/// One generated struct before it has a name.
struct SwiftModelStruct: Sendable {
    struct Property: Sendable {
        /// The JSON key.
        var key: String
        /// The Swift property name (without backticks).
        var name: String
        var type: SwiftModelType
        /// The name hint for a struct this property holds (`address` → `Address`, `meals` → `Meal`).
        var hint: String
    }

    var shape: String
    var properties: [Property]
    /// Where it was used: `"GET /api/users/{id} response"` → recording ids.
    var sources: [String: Set<Int64>] = [:]
}
