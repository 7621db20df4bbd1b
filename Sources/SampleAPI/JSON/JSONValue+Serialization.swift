extension JSONValue {
    /// Compact UTF-8 JSON with sorted keys.
    var serializedBytes: [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(into: &output)
        return output
    }

    private func write(into output: inout [UInt8]) {
        switch self {
        case .null:
            output.append(contentsOf: "null".utf8)
        case .bool(let value):
            output.append(contentsOf: (value ? "true" : "false").utf8)
        case .integer(let value):
            output.append(contentsOf: String(value).utf8)
        case .number(let value):
            output.append(contentsOf: Self.spell(value).utf8)
        case .string(let value):
            Self.writeString(value, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.write(into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.writeString(key, into: &output)
                output.append(UInt8(ascii: ":"))
                members[key, default: .null].write(into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Always with a fraction or exponent (`0.0`, `46.5`), so a field that is a JSON number never
    /// looks like an integer on some responses; integers are `.integer`.
    private static func spell(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        return String(describing: value)
    }

    private static func writeString(_ value: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): output.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): output.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): output.append(contentsOf: #"\t"#.utf8)
            case 0x00..<0x20, 0x7F:
                let hex = String(byte, radix: 16)
                output.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
            default:
                output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
