import Foundation

/// The message, enum and service definitions of one or more `.proto` files, read at run time from
/// `FileDescriptorProto`s (a `FileDescriptorSet` as `protoc --descriptor_set_out` writes it, or the
/// files a server's reflection sends). Only what decoding to protobuf JSON and naming a gRPC
/// method need is kept; names are fully qualified without the leading dot (`shop.v1.Item`).
package struct ProtoSchema: Sendable {
    package private(set) var messages: [String: ProtoMessageType] = [:]
    package private(set) var enums: [String: ProtoEnumType] = [:]
    /// Methods by their gRPC path, `/shop.v1.Catalog/GetItem`.
    package private(set) var methods: [String: ProtoMethod] = [:]
    /// The names of the files read, so a file sent twice (reflection, several protosets) is read once.
    package private(set) var fileNames: Set<String> = []

    package init() {}

    /// Reads a serialized `FileDescriptorSet`.
    package init(fileDescriptorSet: Data) throws(ProtoWireError) {
        self.init()
        try add(fileDescriptorSet: fileDescriptorSet)
    }

    package var isEmpty: Bool { messages.isEmpty && methods.isEmpty }

    package mutating func add(fileDescriptorSet: Data) throws(ProtoWireError) {
        for (number, value) in try ProtoWireReader.fields(of: fileDescriptorSet) {
            guard number == 1, case .lengthDelimited(let file) = value else { continue }
            try add(fileDescriptor: file)
        }
    }

    /// Reads one serialized `FileDescriptorProto`.
    package mutating func add(fileDescriptor: Data) throws(ProtoWireError) {
        var name = ""
        var package = ""
        var syntax = "proto2"
        var messageBlobs: [Data] = []
        var enumBlobs: [Data] = []
        var serviceBlobs: [Data] = []
        for (number, value) in try ProtoWireReader.fields(of: fileDescriptor) {
            guard case .lengthDelimited(let bytes) = value else { continue }
            switch number {
            case 1: name = String(decoding: bytes, as: UTF8.self)
            case 2: package = String(decoding: bytes, as: UTF8.self)
            case 4: messageBlobs.append(bytes)
            case 5: enumBlobs.append(bytes)
            case 6: serviceBlobs.append(bytes)
            case 12: syntax = String(decoding: bytes, as: UTF8.self)
            default: break
            }
        }
        guard !fileNames.contains(name) || name.isEmpty else { return }
        fileNames.insert(name)
        let scope = package.isEmpty ? "" : package + "."
        for blob in messageBlobs { try addMessage(blob, scope: scope, proto3: syntax == "proto3") }
        for blob in enumBlobs { try addEnum(blob, scope: scope) }
        for blob in serviceBlobs { try addService(blob, scope: scope) }
    }

    /// Every definition of `other` that this schema lacks.
    package mutating func merge(_ other: ProtoSchema) {
        messages.merge(other.messages) { mine, _ in mine }
        enums.merge(other.enums) { mine, _ in mine }
        methods.merge(other.methods) { mine, _ in mine }
        fileNames.formUnion(other.fileNames)
    }

    private mutating func addMessage(_ blob: Data, scope: String, proto3: Bool) throws(ProtoWireError) {
        var name = ""
        var fieldBlobs: [Data] = []
        var nested: [Data] = []
        var nestedEnums: [Data] = []
        var isMapEntry = false
        for (number, value) in try ProtoWireReader.fields(of: blob) {
            guard case .lengthDelimited(let bytes) = value else { continue }
            switch number {
            case 1: name = String(decoding: bytes, as: UTF8.self)
            case 2: fieldBlobs.append(bytes)
            case 3: nested.append(bytes)
            case 4: nestedEnums.append(bytes)
            case 7:
                // MessageOptions.map_entry (7): protoc's synthesized entry of a `map<K, V>` field.
                for (option, optionValue) in try ProtoWireReader.fields(of: bytes) where option == 7 {
                    if case .varint(let flag) = optionValue { isMapEntry = flag != 0 }
                }
            default: break
            }
        }
        let fullName = scope + name
        var fields: [Int: ProtoField] = [:]
        for fieldBlob in fieldBlobs {
            let field = try ProtoField(descriptor: fieldBlob, proto3: proto3)
            fields[field.number] = field
        }
        messages[fullName] = ProtoMessageType(fullName: fullName, fields: fields, isMapEntry: isMapEntry)
        for blob in nested { try addMessage(blob, scope: fullName + ".", proto3: proto3) }
        for blob in nestedEnums { try addEnum(blob, scope: fullName + ".") }
    }

    private mutating func addEnum(_ blob: Data, scope: String) throws(ProtoWireError) {
        var name = ""
        var values: [Int32: String] = [:]
        for (number, value) in try ProtoWireReader.fields(of: blob) {
            guard case .lengthDelimited(let bytes) = value else { continue }
            if number == 1 { name = String(decoding: bytes, as: UTF8.self) }
            if number == 2 {
                var valueName = ""
                var valueNumber: Int32 = 0
                for (field, item) in try ProtoWireReader.fields(of: bytes) {
                    if field == 1, case .lengthDelimited(let text) = item { valueName = String(decoding: text, as: UTF8.self) }
                    if field == 2, case .varint(let raw) = item { valueNumber = Int32(truncatingIfNeeded: raw) }
                }
                // The first name of an aliased number is the one JSON writes.
                if values[valueNumber] == nil { values[valueNumber] = valueName }
            }
        }
        enums[scope + name] = ProtoEnumType(fullName: scope + name, names: values)
    }

    private mutating func addService(_ blob: Data, scope: String) throws(ProtoWireError) {
        var name = ""
        var methodBlobs: [Data] = []
        for (number, value) in try ProtoWireReader.fields(of: blob) {
            guard case .lengthDelimited(let bytes) = value else { continue }
            if number == 1 { name = String(decoding: bytes, as: UTF8.self) }
            if number == 2 { methodBlobs.append(bytes) }
        }
        for methodBlob in methodBlobs {
            let method = try ProtoMethod(descriptor: methodBlob, service: scope + name)
            methods[method.path] = method
        }
    }
}

/// A message type: its fields by number.
package struct ProtoMessageType: Sendable {
    package let fullName: String
    package let fields: [Int: ProtoField]
    /// protoc's synthesized entry of a map field (key is field 1, value field 2).
    package let isMapEntry: Bool
}

/// An enum type: the name of each number.
package struct ProtoEnumType: Sendable {
    package let fullName: String
    package let names: [Int32: String]
}

/// One RPC of a service.
package struct ProtoMethod: Sendable, Equatable {
    package let service: String
    package let name: String
    package let inputType: String
    package let outputType: String
    package let clientStreaming: Bool
    package let serverStreaming: Bool

    /// The HTTP/2 `:path` gRPC calls it by.
    package var path: String { "/\(service)/\(name)" }

    /// `unary`, `server streaming`, `client streaming` or `bidirectional streaming`.
    package var kind: String {
        switch (clientStreaming, serverStreaming) {
        case (false, false): "unary"
        case (false, true): "server streaming"
        case (true, false): "client streaming"
        case (true, true): "bidirectional streaming"
        }
    }

    init(descriptor: Data, service: String) throws(ProtoWireError) {
        var name = ""
        var input = ""
        var output = ""
        var clientStreaming = false
        var serverStreaming = false
        for (number, value) in try ProtoWireReader.fields(of: descriptor) {
            switch (number, value) {
            case (1, .lengthDelimited(let bytes)): name = String(decoding: bytes, as: UTF8.self)
            case (2, .lengthDelimited(let bytes)): input = ProtoField.qualified(bytes)
            case (3, .lengthDelimited(let bytes)): output = ProtoField.qualified(bytes)
            case (5, .varint(let flag)): clientStreaming = flag != 0
            case (6, .varint(let flag)): serverStreaming = flag != 0
            default: break
            }
        }
        self.service = service
        self.name = name
        inputType = input
        outputType = output
        self.clientStreaming = clientStreaming
        self.serverStreaming = serverStreaming
    }
}

/// One field of a message type, as `FieldDescriptorProto` describes it.
package struct ProtoField: Sendable {
    /// `FieldDescriptorProto.Type`'s numbers.
    package enum Kind: Int, Sendable {
        case double = 1, float, int64, uint64, int32, fixed64, fixed32, bool, string, group, message, bytes
        case uint32, `enum`, sfixed32, sfixed64, sint32, sint64
    }

    package let name: String
    package let jsonName: String
    package let number: Int
    package let kind: Kind
    package let isRepeated: Bool
    /// The message or enum type, fully qualified without the leading dot.
    package let typeName: String?
    /// Whether the field tells "not set" from its default (proto2, `optional` in proto3, a oneof
    /// member, a message); proto3's other scalars leave defaults off the wire and out of JSON.
    package let hasPresence: Bool

    init(descriptor: Data, proto3: Bool) throws(ProtoWireError) {
        var name = ""
        var jsonName: String?
        var number = 0
        var kind = Kind.int32
        var label: UInt64 = 1
        var typeName: String?
        var inOneof = false
        var proto3Optional = false
        for (field, value) in try ProtoWireReader.fields(of: descriptor) {
            switch (field, value) {
            case (1, .lengthDelimited(let bytes)): name = String(decoding: bytes, as: UTF8.self)
            case (3, .varint(let raw)): number = Int(truncatingIfNeeded: raw)
            case (4, .varint(let raw)): label = raw
            case (5, .varint(let raw)): kind = Kind(rawValue: Int(truncatingIfNeeded: raw)) ?? .int32
            case (6, .lengthDelimited(let bytes)): typeName = Self.qualified(bytes)
            case (9, .varint): inOneof = true
            case (10, .lengthDelimited(let bytes)): jsonName = String(decoding: bytes, as: UTF8.self)
            case (17, .varint(let raw)): proto3Optional = raw != 0
            default: break
            }
        }
        self.name = name
        self.jsonName = jsonName ?? Self.lowerCamel(name)
        self.number = number
        self.kind = kind
        isRepeated = label == 3
        self.typeName = typeName
        hasPresence = !proto3 || proto3Optional || inOneof || kind == .message || kind == .group
    }

    static func qualified(_ bytes: Data) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.hasPrefix(".") ? String(text.dropFirst()) : text
    }

    /// protoc's default JSON name: underscores dropped, the letter after each one upper-cased.
    static func lowerCamel(_ name: String) -> String {
        var result = ""
        var upperNext = false
        for character in name {
            if character == "_" {
                upperNext = true
            } else if upperNext {
                result += character.uppercased()
                upperNext = false
            } else {
                result.append(character)
            }
        }
        return result
    }
}
