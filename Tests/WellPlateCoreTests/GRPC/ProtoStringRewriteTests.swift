import Foundation
import Testing

@testable import WellPlateCore

/// String fields rewritten without descriptors, found by wire type, and re-encoded.
@Suite("Protobuf string fields rewritten by wire type")
struct ProtoStringRewriteTests {
    private func replacingSecret(_ bytes: Data) -> Data {
        Data(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "s3cr3t-value", with: "X").utf8)
    }

    @Test("a string at the top and one inside a nested message change, length prefixes follow, other fields stay")
    func nestedAndTopLevel() throws {
        var inner = ProtoWireWriter()
        inner.field(1, string: "inner s3cr3t-value")
        inner.field(2, varint: 300)
        var outer = ProtoWireWriter()
        outer.field(1, string: "top s3cr3t-value")
        outer.field(2, bytes: inner.data)
        outer.field(3, .fixed32(7))
        outer.field(4, .fixed64(9))
        outer.field(5, bytes: Data([0xFF, 0xFE]))
        let rewritten = ProtoSchema().rewritingStrings(in: outer.data, path: "/x.Y/Z", direction: .request, replacingSecret)
        let fields = try ProtoWireReader.fields(of: rewritten)
        #expect(fields.map(\.number) == [1, 2, 3, 4, 5])
        #expect(fields[0].value == .lengthDelimited(Data("top X".utf8)))
        guard case .lengthDelimited(let nested) = fields[1].value else {
            Issue.record("field 2 is not length-delimited")
            return
        }
        let innerFields = try ProtoWireReader.fields(of: nested)
        #expect(innerFields[0].value == .lengthDelimited(Data("inner X".utf8)))
        #expect(innerFields[1].value == .varint(300))
        #expect(fields[2].value == .fixed32(7))
        #expect(fields[3].value == .fixed64(9))
        #expect(fields[4].value == .lengthDelimited(Data([0xFF, 0xFE])))
    }

    @Test("a message with nothing to change, or that does not parse, is returned as it is")
    func unchanged() {
        var writer = ProtoWireWriter()
        writer.field(1, string: "nothing here")
        let schema = ProtoSchema()
        #expect(schema.rewritingStrings(in: writer.data, path: "/x.Y/Z", direction: .request, replacingSecret) == writer.data)
        let broken = Data([0x0A, 0x20, 0x41])
        #expect(schema.rewritingStrings(in: broken, path: "/x.Y/Z", direction: .request, replacingSecret) == broken)
    }
}
