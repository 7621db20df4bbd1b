import Foundation

/// A protobuf wire-format error: the bytes are not a message of the claimed shape.
package struct ProtoWireError: Error, Sendable, Equatable, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// One field as it appears on the wire: its number and its value by wire type. Groups (wire
/// types 3 and 4, deprecated since proto2) are refused rather than guessed at.
package enum ProtoWireValue: Sendable, Equatable {
    case varint(UInt64)
    case fixed64(UInt64)
    case lengthDelimited(Data)
    case fixed32(UInt32)
}

/// Reads the fields of one encoded message in order, without a schema (what `protoc --decode_raw`
/// reads). Works on `[UInt8]` so offsets are plain integers whatever the `Data`'s start index.
package struct ProtoWireReader {
    private let bytes: [UInt8]
    private var position = 0

    package init(_ data: Data) { bytes = [UInt8](data) }
    package init(bytes: [UInt8]) { self.bytes = bytes }

    package var isAtEnd: Bool { position >= bytes.count }

    /// The next field, or `nil` at the end of the message.
    package mutating func next() throws(ProtoWireError) -> (number: Int, value: ProtoWireValue)? {
        guard !isAtEnd else { return nil }
        let tag = try readVarint()
        let number = Int(tag >> 3)
        guard number > 0, number <= 536_870_911 else { throw ProtoWireError("field number \(number) is out of range") }
        switch tag & 7 {
        case 0: return (number, .varint(try readVarint()))
        case 1: return (number, .fixed64(try readFixed(8)))
        case 2:
            let length = try readVarint()
            guard length <= UInt64(bytes.count - position) else {
                throw ProtoWireError("field \(number) claims \(length) bytes but \(bytes.count - position) remain")
            }
            let start = position
            position += Int(length)
            return (number, .lengthDelimited(Data(bytes[start..<position])))
        case 5: return (number, .fixed32(UInt32(try readFixed(4))))
        case let wireType: throw ProtoWireError("field \(number) has wire type \(wireType), which is not supported")
        }
    }

    /// Every field of the message, in wire order.
    package static func fields(of data: Data) throws(ProtoWireError) -> [(number: Int, value: ProtoWireValue)] {
        var reader = ProtoWireReader(data)
        var fields: [(number: Int, value: ProtoWireValue)] = []
        while let field = try reader.next() { fields.append(field) }
        return fields
    }

    /// The varints of a packed repeated field.
    package static func packedVarints(_ data: Data) throws(ProtoWireError) -> [UInt64] {
        var reader = ProtoWireReader(data)
        var values: [UInt64] = []
        while !reader.isAtEnd { values.append(try reader.readVarint()) }
        return values
    }

    /// The fixed-width values of a packed repeated field (`width` 4 or 8).
    package static func packedFixed(_ data: Data, width: Int) throws(ProtoWireError) -> [UInt64] {
        guard data.count % width == 0 else { throw ProtoWireError("a packed field of \(data.count) bytes is not a multiple of \(width)") }
        var reader = ProtoWireReader(data)
        var values: [UInt64] = []
        while !reader.isAtEnd { values.append(try reader.readFixed(width)) }
        return values
    }

    mutating func readVarint() throws(ProtoWireError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while position < bytes.count, shift < 64 {
            let byte = bytes[position]
            position += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
        throw ProtoWireError("a varint runs past the end of the message")
    }

    mutating func readFixed(_ width: Int) throws(ProtoWireError) -> UInt64 {
        guard bytes.count - position >= width else { throw ProtoWireError("a \(width * 8)-bit field runs past the end of the message") }
        var result: UInt64 = 0
        for index in 0..<width { result |= UInt64(bytes[position + index]) << (8 * UInt64(index)) }
        position += width
        return result
    }
}

/// Writes the few wire shapes the proxy itself produces (reflection requests, tests' messages).
package struct ProtoWireWriter {
    package private(set) var data = Data()
    package init() {}

    package mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            data.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        data.append(UInt8(value))
    }

    package mutating func field(_ number: Int, varint value: UInt64) {
        varint(UInt64(number) << 3)
        varint(value)
    }

    package mutating func field(_ number: Int, bytes value: Data) {
        varint(UInt64(number) << 3 | 2)
        varint(UInt64(value.count))
        data.append(value)
    }

    package mutating func field(_ number: Int, string value: String) {
        field(number, bytes: Data(value.utf8))
    }
}

extension ProtoWireWriter {
    /// Writes a field as it was read.
    package mutating func field(_ number: Int, _ value: ProtoWireValue) {
        switch value {
        case .varint(let value): field(number, varint: value)
        case .lengthDelimited(let bytes): field(number, bytes: bytes)
        case .fixed64(let value):
            varint(UInt64(number) << 3 | 1)
            for index in 0..<8 { data.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) }
        case .fixed32(let value):
            varint(UInt64(number) << 3 | 5)
            for index in 0..<4 { data.append(UInt8(truncatingIfNeeded: value >> (8 * UInt32(index)))) }
        }
    }
}
