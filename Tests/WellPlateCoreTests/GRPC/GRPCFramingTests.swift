import Foundation
import Testing

@testable import WellPlateCore

@Suite("gRPC message framing")
struct GRPCFramingTests {
    @Test("messages are cut out of DATA frames whatever their boundaries")
    func splitAcrossFrames() throws {
        let first = GRPCFrame(payload: Data("hello".utf8)).encoded
        let second = GRPCFrame(compressed: true, payload: Data([1, 2, 3])).encoded
        let empty = GRPCFrame(payload: Data()).encoded
        let all = first + second + empty
        var reader = GRPCFrameReader(limit: 100)
        var frames: [GRPCFrame] = []
        for byte in all { frames += try reader.append(Data([byte])) }
        try reader.finish()
        #expect(frames == [GRPCFrame(payload: Data("hello".utf8)), GRPCFrame(compressed: true, payload: Data([1, 2, 3])), GRPCFrame(payload: Data())])
    }

    @Test("a message over the limit is RESOURCE_EXHAUSTED from its prefix alone")
    func tooLarge() {
        var reader = GRPCFrameReader(limit: 4)
        #expect(throws: GRPCFramingError.tooLarge(length: 5, limit: 4)) { try reader.append(Data([0, 0, 0, 0, 5])) }
        #expect(GRPCFramingError.tooLarge(length: 5, limit: 4).status == .resourceExhausted)
    }

    @Test("a flag other than 0 or 1, or a body cut short, is INTERNAL")
    func broken() throws {
        var reader = GRPCFrameReader(limit: 100)
        #expect(throws: GRPCFramingError.badFlag(0x7B)) { try reader.append(Data(#"{"json": true}"#.utf8)) }
        var short = GRPCFrameReader(limit: 100)
        #expect(try short.append(Data([0, 0, 0, 0, 9, 1, 2])).isEmpty)
        #expect(throws: GRPCFramingError.truncated(missing: 7)) { try short.finish() }
        #expect(GRPCFramingError.badFlag(2).status == .internalError)
    }

    @Test("grpc-timeout units and grpc-message's percent-encoding")
    func headerValues() {
        #expect(GRPCTimeout.parse("200m") == .milliseconds(200))
        #expect(GRPCTimeout.parse("1H") == .seconds(3600))
        #expect(GRPCTimeout.parse("123456789S") == nil)
        #expect(GRPCTimeout.parse("5x") == nil)
        #expect(GRPCMessageText.encode("50% of é") == "50%25 of %C3%A9")
        #expect(GRPCMessageText.decode("50%25 of %C3%A9") == "50% of é")
        #expect(GRPCStatusCode.name(of: "5") == "NOT_FOUND")
    }
}
