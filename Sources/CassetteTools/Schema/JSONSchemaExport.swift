import WellPlateCore
import WellPlateNetworking

extension InferredSchema {
    /// The dialect URI written as `$schema`.
    package static let jsonSchemaDialect = "https://json-schema.org/draft/2020-12/schema"

    /// The schema as a JSON Schema (draft 2020-12) document.
    ///
    /// A single type is `{"type": "string"}`, nullable `{"type": ["string", "null"]}`; a union is
    /// `anyOf` with one member per type (and `{"type": "null"}` when nullable). Objects list
    /// `properties` and `required`; arrays list `items` unless every array was empty. A location
    /// with no samples is `{}`, which accepts anything. Print with `prettyJSON` for sorted keys.
    package func jsonSchema() -> JSONValue {
        var document = jsonSchemaObject()
        document["$schema"] = .string(Self.jsonSchemaDialect)
        return .object(document)
    }

    private func jsonSchemaObject() -> JSONObject {
        guard !isEmpty else { return [:] }
        let types = nonNullTypes
        switch types.count {
        case 0:
            return ["type": "null"]
        case 1:
            var schema = memberSchema(types[0])
            if isNullable {
                schema["type"] = [.string(types[0].rawValue), "null"]
            }
            return schema
        default:
            var members = types.map { JSONValue.object(memberSchema($0)) }
            if isNullable {
                members.append(["type": "null"])
            }
            return ["anyOf": .array(members)]
        }
    }

    private func memberSchema(_ type: SchemaType) -> JSONObject {
        var schema: JSONObject = ["type": .string(type.rawValue)]
        switch type {
        case .string:
            if let stringFormat {
                schema["format"] = .string(stringFormat.rawValue)
            }
        case .array:
            if let items {
                schema["items"] = .object(items.jsonSchemaObject())
            }
        case .object:
            if !properties.isEmpty {
                schema["properties"] = .object(JSONObject(propertyNames.map { ($0, .object(properties[$0]!.jsonSchemaObject())) }))
            }
            let required = requiredProperties
            if !required.isEmpty {
                schema["required"] = .array(required.map(JSONValue.string))
            }
        default:
            break
        }
        return schema
    }
}
