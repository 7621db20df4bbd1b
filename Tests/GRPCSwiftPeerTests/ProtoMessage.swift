/// A protobuf message as its wire fields, enough for shop.proto's messages without generated code:
/// varints (int32, int64, enums) and length-delimited values (strings, bytes, nested messages,
/// map entries). Encoded in field order, decoded with repeated fields kept in order.
struct ProtoMessage: Hashable, Sendable {
    enum Value: Hashable, Sendable {
        case varint(UInt64)
        case bytes([UInt8])
        /// Fixed-width values, kept so a decode never fails on a message it does not look into.
        case fixed([UInt8])
    }

    var fields: [(number: Int, value: Value)] = []

    init(_ fields: [(number: Int, value: Value)] = []) {
        self.fields = fields
    }

    static func == (lhs: ProtoMessage, rhs: ProtoMessage) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.number == $1.number && $0.value == $1.value }
    }

    func hash(into hasher: inout Hasher) {
        for field in fields {
            hasher.combine(field.number)
            hasher.combine(field.value)
        }
    }

    func string(_ number: Int) -> String? {
        strings(number).last
    }

    func strings(_ number: Int) -> [String] {
        fields.compactMap { field in
            guard field.number == number, case .bytes(let bytes) = field.value else { return nil }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    func integer(_ number: Int) -> Int64? {
        fields.last { $0.number == number }.flatMap { field in
            guard case .varint(let value) = field.value else { return nil }
            return Int64(bitPattern: value)
        }
    }

    func message(_ number: Int) throws -> ProtoMessage? {
        guard let field = fields.last(where: { $0.number == number }), case .bytes(let bytes) = field.value else { return nil }
        return try ProtoMessage(decoding: bytes)
    }

    var encoded: [UInt8] {
        var out: [UInt8] = []
        for field in fields {
            switch field.value {
            case .varint(let value):
                Self.appendVarint(UInt64(field.number << 3), to: &out)
                Self.appendVarint(value, to: &out)
            case .bytes(let bytes):
                Self.appendVarint(UInt64(field.number << 3 | 2), to: &out)
                Self.appendVarint(UInt64(bytes.count), to: &out)
                out += bytes
            case .fixed(let bytes):
                Self.appendVarint(UInt64(field.number << 3 | (bytes.count == 8 ? 1 : 5)), to: &out)
                out += bytes
            }
        }
        return out
    }

    init(decoding bytes: [UInt8]) throws {
        var index = 0
        func varint() throws -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while index < bytes.count, shift < 64 {
                let byte = bytes[index]
                index += 1
                value |= UInt64(byte & 0x7f) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
            throw ProtoWireError("a varint runs past the end of a \(bytes.count)-byte message")
        }
        func take(_ count: Int) throws -> [UInt8] {
            guard count >= 0, index + count <= bytes.count else {
                throw ProtoWireError("a field of \(count) bytes runs past the end of a \(bytes.count)-byte message")
            }
            defer { index += count }
            return Array(bytes[index..<index + count])
        }
        while index < bytes.count {
            let tag = try varint()
            let number = Int(tag >> 3)
            switch tag & 7 {
            case 0: fields.append((number, .varint(try varint())))
            case 1: fields.append((number, .fixed(try take(8))))
            case 2: fields.append((number, .bytes(try take(Int(try varint())))))
            case 5: fields.append((number, .fixed(try take(4))))
            default: throw ProtoWireError("wire type \(tag & 7) of field \(number) is not protobuf's")
            }
        }
    }

    private static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            out.append(UInt8(rest & 0x7f) | 0x80)
            rest >>= 7
        }
        out.append(UInt8(rest))
    }
}

extension ProtoMessage.Value {
    static func string(_ text: String) -> Self { .bytes(Array(text.utf8)) }
    static func int(_ value: Int) -> Self { .varint(UInt64(bitPattern: Int64(value))) }
}

struct ProtoWireError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
