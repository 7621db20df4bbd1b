import WellPlateCore
import WellPlateNetworking

/// Turns inferred schemas into struct shapes, merging structs of the same shape wherever they
/// occur, then names them (`SwiftModelNaming`).
///
/// Mapping: boolean `Bool`, integer `Int` (`Decimal` once a value was beyond 64 bits), number (or integers and fractions mixed) `Double`,
/// string `String` or `Date` when every string was an RFC 3339 date-time, array `[Item]` from
/// the merged item schema, object a struct. A union of types, a location that only ever held
/// `null`, and the items of arrays that were always empty are `JSONValue`: never a guessed type.
/// A property is optional when some object lacked the key or some value was `null`.
struct SwiftModelBuilder {
    private(set) var structs: [String: SwiftModelStruct] = [:]
    private(set) var usesJSONValue = false

    /// The type of a whole body; `source` names the endpoint and role for the header comments.
    mutating func rootType(for schema: InferredSchema, source: String, ids: Set<Int64>) -> SwiftModelType {
        let base = type(for: schema, source: source, ids: ids)
        return schema.isNullable && base != .json ? .optional(base) : base
    }

    private mutating func type(for schema: InferredSchema, source: String, ids: Set<Int64>) -> SwiftModelType {
        let types = schema.nonNullTypes
        guard types.count == 1 else {
            usesJSONValue = true
            return .json
        }
        switch types[0] {
        case .boolean: return .bool
        case .integer: return schema.wideIntegerCount > 0 ? .decimal : .int
        case .number: return .double
        case .string: return schema.stringFormat == .dateTime ? .date : .string
        case .null: return .json
        case .array:
            guard let items = schema.items else {
                usesJSONValue = true
                return .array(.json)
            }
            let element = type(for: items, source: source, ids: ids)
            return .array(items.isNullable && element != .json ? .optional(element) : element)
        case .object:
            return .model(model(for: schema, source: source, ids: ids))
        }
    }

    private mutating func model(for schema: InferredSchema, source: String, ids: Set<Int64>) -> String {
        var properties: [SwiftModelStruct.Property] = []
        var used: Set<String> = []
        for key in schema.propertyNames {
            guard let child = schema.properties[key] else { continue }
            var childType = type(for: child, source: source, ids: ids)
            if child.isNullable || !schema.isRequired(key) {
                childType = .optional(childType)
            }
            let base = SwiftNaming.propertyName(forKey: key)
            var name = base
            var suffix = 2
            while !used.insert(name).inserted {
                name = base + String(suffix)
                suffix += 1
            }
            let isArray: Bool =
                switch childType {
                case .array, .optional(.array): true
                default: false
                }
            properties.append(.init(key: key, name: name, type: childType, hint: SwiftNaming.typeName(from: key, singular: isArray)))
        }
        let shape = properties.map { JSONValue.string($0.key).compactJSON + ":" + $0.type.shapeKey }.joined(separator: ",")
        structs[shape, default: SwiftModelStruct(shape: shape, properties: properties)].sources[source, default: []].formUnion(ids)
        return shape
    }
}

/// Gives every struct a name, walking the roots in order and each struct before its properties, so
/// the first use of a shape names it: `User` from `GET /api/users/{id}`, `Address` from the key
/// `address`. A name already taken by another shape is prefixed with its parent's name
/// (`UserAddress`), then numbered (`Address2`).
struct SwiftModelNaming {
    private(set) var names: [String: String] = [:]
    private var taken: Set<String> = ["JSONValue"]
    let structs: [String: SwiftModelStruct]

    init(structs: [String: SwiftModelStruct]) {
        self.structs = structs
    }

    mutating func name(_ type: SwiftModelType, hint: String, parent: String?) {
        for shape in type.models where names[shape] == nil {
            guard let model = structs[shape] else { continue }
            let name = unusedName(hint, parent: parent)
            names[shape] = name
            for property in model.properties {
                self.name(property.type, hint: property.hint, parent: name)
            }
        }
    }

    private mutating func unusedName(_ hint: String, parent: String?) -> String {
        if taken.insert(hint).inserted { return hint }
        if let parent, taken.insert(parent + hint).inserted { return parent + hint }
        var suffix = 2
        while !taken.insert(hint + String(suffix)).inserted { suffix += 1 }
        return hint + String(suffix)
    }
}
