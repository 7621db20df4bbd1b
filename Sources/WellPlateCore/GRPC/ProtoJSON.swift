import Foundation

extension ProtoSchema {
    /// `message`, a serialized `typeName`, as protobuf JSON (proto3's JSON mapping): fields by their
    /// JSON name (lowerCamelCase), 64-bit integers as strings, bytes in base64, enums by name,
    /// maps as objects, proto3 defaults left out. Fields the schema does not know keep their
    /// number as the key, so nothing on the wire is hidden. Throws when the bytes do not parse.
    package func json(of message: Data, type typeName: String) throws(ProtoWireError) -> JSONValue {
        guard let type = messages[typeName] else { throw ProtoWireError("the schema has no message type \(typeName)") }
        return try json(of: message, type: type, depth: 0)
    }

    private func json(of message: Data, type: ProtoMessageType, depth: Int) throws(ProtoWireError) -> JSONValue {
        guard depth < 64 else { throw ProtoWireError("messages nest deeper than 64 levels") }
        if let special = try wellKnownJSON(message, type: type.fullName) { return special }
        var object = JSONObject()
        var repeated: [Int: [JSONValue]] = [:]
        var order: [Int] = []
        var singles: [Int: JSONValue] = [:]
        for (number, value) in try ProtoWireReader.fields(of: message) {
            if !order.contains(number) { order.append(number) }
            guard let field = type.fields[number] else {
                repeated[number, default: []].append(rawJSON(value))
                continue
            }
            if field.isRepeated {
                repeated[number, default: []] += try elements(value, field: field, depth: depth)
            } else {
                singles[number] = try scalar(value, field: field, depth: depth)
            }
        }
        for number in order.sorted() {
            guard let field = type.fields[number] else {
                let values = repeated[number] ?? []
                object[String(number)] = values.count == 1 ? values[0] : .array(values)
                continue
            }
            if field.isRepeated {
                let values = repeated[number] ?? []
                if let entry = field.typeName.flatMap({ messages[$0] }), entry.isMapEntry {
                    object[field.jsonName] = .object(mapObject(values))
                } else {
                    object[field.jsonName] = .array(values)
                }
            } else if let value = singles[number], field.hasPresence || !Self.isDefault(value) {
                object[field.jsonName] = value
            }
        }
        return .object(object)
    }

    /// A map field's entries (each decoded as `{"key": ..., "value": ...}`) as one object.
    private func mapObject(_ entries: [JSONValue]) -> JSONObject {
        var object = JSONObject()
        for entry in entries {
            let key: String
            switch entry["key"] {
            case .string(let text): key = text
            case .integer(let number): key = String(number)
            case .bool(let flag): key = flag ? "true" : "false"
            default: key = ""
            }
            object[key] = entry["value"] ?? .null
        }
        return object
    }

    private func elements(_ value: ProtoWireValue, field: ProtoField, depth: Int) throws(ProtoWireError) -> [JSONValue] {
        // A packed run of scalars arrives as one length-delimited field.
        if case .lengthDelimited(let bytes) = value, ![.string, .bytes, .message, .group].contains(field.kind) {
            switch field.kind {
            case .double, .fixed64, .sfixed64:
                return try ProtoWireReader.packedFixed(bytes, width: 8).map { scalarJSON(.fixed64($0), field: field) }
            case .float, .fixed32, .sfixed32:
                return try ProtoWireReader.packedFixed(bytes, width: 4).map { scalarJSON(.fixed32(UInt32(truncatingIfNeeded: $0)), field: field) }
            default:
                return try ProtoWireReader.packedVarints(bytes).map { scalarJSON(.varint($0), field: field) }
            }
        }
        return [try scalar(value, field: field, depth: depth)]
    }

    private func scalar(_ value: ProtoWireValue, field: ProtoField, depth: Int) throws(ProtoWireError) -> JSONValue {
        if field.kind == .message, case .lengthDelimited(let bytes) = value {
            guard let type = field.typeName.flatMap({ messages[$0] }) else { return ProtoRawText.json(of: bytes) }
            return try json(of: bytes, type: type, depth: depth + 1)
        }
        if field.kind == .enum, case .varint(let raw) = value {
            let number = Int32(truncatingIfNeeded: raw)
            if let name = field.typeName.flatMap({ enums[$0] })?.names[number] { return .string(name) }
            return .integer(Int64(number))
        }
        return scalarJSON(value, field: field)
    }

    private func scalarJSON(_ value: ProtoWireValue, field: ProtoField) -> JSONValue {
        switch (field.kind, value) {
        case (.string, .lengthDelimited(let bytes)): return .string(String(decoding: bytes, as: UTF8.self))
        case (.bytes, .lengthDelimited(let bytes)): return .string(bytes.base64EncodedString())
        case (.bool, .varint(let raw)): return .bool(raw != 0)
        case (.int32, .varint(let raw)), (.enum, .varint(let raw)): return .integer(Int64(Int32(truncatingIfNeeded: raw)))
        case (.uint32, .varint(let raw)): return .integer(Int64(UInt32(truncatingIfNeeded: raw)))
        case (.sint32, .varint(let raw)): return .integer(Int64(Int32(truncatingIfNeeded: Self.zigZag(raw))))
        case (.int64, .varint(let raw)): return .string(String(Int64(bitPattern: raw)))
        case (.uint64, .varint(let raw)): return .string(String(raw))
        case (.sint64, .varint(let raw)): return .string(String(Self.zigZag(raw)))
        case (.fixed64, .fixed64(let raw)): return .string(String(raw))
        case (.sfixed64, .fixed64(let raw)): return .string(String(Int64(bitPattern: raw)))
        case (.double, .fixed64(let raw)): return Self.floatingJSON(Double(bitPattern: raw))
        case (.fixed32, .fixed32(let raw)): return .integer(Int64(raw))
        case (.sfixed32, .fixed32(let raw)): return .integer(Int64(Int32(bitPattern: raw)))
        case (.float, .fixed32(let raw)): return Self.floatingJSON(Double(Float(bitPattern: raw)))
        default: return rawJSON(value)
        }
    }

    /// A value whose wire type does not fit its field (or an unknown field), kept as it arrived.
    private func rawJSON(_ value: ProtoWireValue) -> JSONValue {
        switch value {
        case .varint(let raw): .string(String(raw))
        case .fixed64(let raw): .string(String(raw))
        case .fixed32(let raw): .integer(Int64(raw))
        case .lengthDelimited(let bytes): ProtoRawText.json(of: bytes)
        }
    }

    /// Nanoseconds as proto3's JSON writes them: none, or 3, 6 or 9 digits.
    static func fraction(nanos: Int) -> String {
        guard nanos != 0 else { return "" }
        let digits = String(format: "%09d", nanos)
        if nanos % 1_000_000 == 0 { return "." + digits.prefix(3) }
        if nanos % 1000 == 0 { return "." + digits.prefix(6) }
        return "." + digits
    }

    static func zigZag(_ raw: UInt64) -> Int64 {
        Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    static func floatingJSON(_ value: Double) -> JSONValue {
        if value.isNaN { return .string("NaN") }
        if value.isInfinite { return .string(value > 0 ? "Infinity" : "-Infinity") }
        if value == value.rounded(), abs(value) < 1e15 { return .integer(Int64(value)) }
        return .number(value)
    }

    static func isDefault(_ value: JSONValue) -> Bool {
        switch value {
        case .integer(0), .bool(false), .string(""), .string("0"): true
        case .number(let number): number == 0
        case .array(let elements): elements.isEmpty
        default: false
        }
    }

    /// Timestamp, Duration and the wrappers, as proto3's JSON mapping writes them.
    private func wellKnownJSON(_ message: Data, type: String) throws(ProtoWireError) -> JSONValue? {
        switch type {
        case "google.protobuf.Timestamp", "google.protobuf.Duration":
            var seconds: Int64 = 0
            var nanos: Int32 = 0
            for (number, value) in try ProtoWireReader.fields(of: message) {
                if number == 1, case .varint(let raw) = value { seconds = Int64(bitPattern: raw) }
                if number == 2, case .varint(let raw) = value { nanos = Int32(truncatingIfNeeded: raw) }
            }
            let fraction = Self.fraction(nanos: abs(Int(nanos)))
            if type == "google.protobuf.Duration" {
                let sign = seconds < 0 || nanos < 0 ? "-" : ""
                return .string("\(sign)\(abs(seconds))\(fraction)s")
            }
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime]
            let text = formatter.string(from: Date(timeIntervalSince1970: Double(seconds)))
            return .string(String(text.dropLast()) + fraction + "Z")
        case "google.protobuf.StringValue", "google.protobuf.BytesValue", "google.protobuf.BoolValue",
            "google.protobuf.Int32Value", "google.protobuf.UInt32Value", "google.protobuf.Int64Value",
            "google.protobuf.UInt64Value", "google.protobuf.DoubleValue", "google.protobuf.FloatValue":
            guard let field = messages[type]?.fields[1] else { return nil }
            var result = scalarJSON(field.kind == .string ? .lengthDelimited(Data()) : .varint(0), field: field)
            for (number, value) in try ProtoWireReader.fields(of: message) where number == 1 {
                result = scalarJSON(value, field: field)
            }
            return result
        default:
            return nil
        }
    }
}
