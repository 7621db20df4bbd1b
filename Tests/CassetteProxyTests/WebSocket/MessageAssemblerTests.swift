import Foundation
import NIOCore
import NIOWebSocket
import Testing
import WellPlateCore

@testable import CassetteForward
@testable import CassetteKernel
@testable import CassetteProxy
@testable import CassetteServing
@testable import CassetteUIServer
@testable import CassetteWebSocket

/// Frames joined into messages as the recorder stores them: fragment sizes kept, control frames
/// standing alone, the size limit applied to the whole message, and what RFC 6455 fails a
/// connection for refused with its close code: frames out of order, the wrong masking for the
/// sender, reserved opcodes and bits, text that is not UTF-8, a malformed close.
@Suite("WebSocket message assembly")
struct MessageAssemblerTests {
    private func frame(_ opcode: WebSocketOpcode, _ text: String, fin: Bool = true, masked: Bool = true) -> WebSocketFrame {
        frame(opcode, ByteBuffer(string: text), fin: fin, masked: masked)
    }

    private func frame(_ opcode: WebSocketOpcode, _ bytes: [UInt8], masked: Bool = true) -> WebSocketFrame {
        frame(opcode, ByteBuffer(bytes: bytes), fin: true, masked: masked)
    }

    private func frame(_ opcode: WebSocketOpcode, _ data: ByteBuffer, fin: Bool, masked: Bool, rsv1: Bool = false) -> WebSocketFrame {
        var frame = WebSocketFrame(fin: fin, rsv1: rsv1, opcode: opcode, maskKey: masked ? .random() : nil, data: data)
        // As the decoder hands it over: the payload still masked.
        if masked { frame.data.webSocketMask(frame.maskKey!) }
        return frame
    }

    @Test func aFragmentedMessageIsJoinedUnmaskedWithItsFragmentSizesAndAPingInBetweenStandsAlone() {
        var assembler = MessageAssembler(maxMessageSize: 100, sender: .client)
        #expect(assembler.add(frame(.text, "hel", fin: false)) == .partial)
        #expect(assembler.add(frame(.ping, "p")) == .message(.ping, Data("p".utf8), fragments: [1]))
        #expect(assembler.add(frame(.continuation, "lo ", fin: false)) == .partial)
        #expect(assembler.add(frame(.continuation, "world")) == .message(.text, Data("hello world".utf8), fragments: [3, 3, 5]))
        #expect(assembler.add(frame(.binary, "x")) == .message(.binary, Data("x".utf8), fragments: [1]))
        var server = MessageAssembler(maxMessageSize: 100, sender: .server)
        #expect(server.add(frame(.binary, "x", masked: false)) == .message(.binary, Data("x".utf8), fragments: [1]))
    }

    @Test func aMessageOverTheLimitIsRefusedEvenWhenEachFragmentFits() {
        var assembler = MessageAssembler(maxMessageSize: 8, sender: .client)
        #expect(assembler.add(frame(.binary, "12345", fin: false)) == .partial)
        #expect(assembler.add(frame(.continuation, "6789")) == .refused(.tooLarge))
        #expect(WebSocketViolation.tooLarge.code == 1009)
    }

    @Test func aContinuationWithNoMessageOrANewMessageInsideOneIsOutOfOrder() {
        var assembler = MessageAssembler(maxMessageSize: 100, sender: .client)
        #expect(assembler.add(frame(.continuation, "x")) == .refused(.outOfOrder))
        #expect(assembler.add(frame(.text, "a", fin: false)) == .partial)
        #expect(assembler.add(frame(.text, "b")) == .refused(.outOfOrder))
    }

    @Test func anUnmaskedClientFrameAndAMaskedServerFrameAreProtocolErrors() {
        var client = MessageAssembler(maxMessageSize: 100, sender: .client)
        #expect(client.add(frame(.text, "hi", masked: false)) == .refused(.unmasked))
        #expect(client.add(frame(.ping, "p", masked: false)) == .refused(.unmasked))
        var server = MessageAssembler(maxMessageSize: 100, sender: .server)
        #expect(server.add(frame(.text, "hi")) == .refused(.masked))
        #expect(WebSocketViolation.unmasked.code == 1002)
    }

    @Test func reservedOpcodesAndReservedBitsAreProtocolErrors() {
        var assembler = MessageAssembler(maxMessageSize: 100, sender: .client)
        #expect(assembler.add(frame(WebSocketOpcode(encodedWebSocketOpcode: 0x3)!, "x")) == .refused(.reservedOpcode(0x3)))
        #expect(assembler.add(frame(WebSocketOpcode(encodedWebSocketOpcode: 0xB)!, "x")) == .refused(.reservedOpcode(0xB)))
        #expect(WebSocketViolation.reservedOpcode(0xB).reason == "reserved opcode 0xB")
        // No extension is negotiated through the proxy, so RSV1 (permessage-deflate's bit) is refused too.
        #expect(assembler.add(frame(.text, ByteBuffer(string: "x"), fin: true, masked: true, rsv1: true)) == .refused(.reservedBits))
    }

    @Test func textThatIsNotUTF8Is1007EvenWhenACharacterIsSplitAcrossFragments() {
        var assembler = MessageAssembler(maxMessageSize: 100, sender: .client)
        #expect(assembler.add(frame(.text, [0x68, 0xFF, 0xFE])) == .refused(.invalidUTF8))
        #expect(WebSocketViolation.invalidUTF8.code == 1007)
        // "é" (0xC3 0xA9) split between two fragments is valid once joined.
        #expect(assembler.add(frame(.text, ByteBuffer(bytes: [0xC3]), fin: false, masked: true)) == .partial)
        #expect(
            assembler.add(frame(.continuation, ByteBuffer(bytes: [0xA9]), fin: true, masked: true)) == .message(.text, Data([0xC3, 0xA9]), fragments: [1, 1]))
        // Binary messages carry any bytes.
        #expect(assembler.add(frame(.binary, [0xFF])) == .message(.binary, Data([0xFF]), fragments: [1]))
    }

    @Test func aCloseWithOneByteAReservedCodeOrAReasonThatIsNotUTF8IsAProtocolError() {
        var assembler = MessageAssembler(maxMessageSize: 100, sender: .client)
        #expect(assembler.add(frame(.connectionClose, [0x03])) == .refused(.invalidClose))
        // 1005 and 1006 are never sent on the wire.
        #expect(assembler.add(frame(.connectionClose, [0x03, 0xED])) == .refused(.invalidClose))
        #expect(assembler.add(frame(.connectionClose, [0x0F, 0xA0, 0xFF])) == .refused(.invalidClose))
        #expect(assembler.add(frame(.connectionClose, [0x0F, 0xA0, 0x62])) == .message(.close, Data([0x0F, 0xA0, 0x62]), fragments: [3]))
        #expect(assembler.add(frame(.connectionClose, [])) == .message(.close, Data(), fragments: [0]))
    }

    @Test func aPayloadIsUnmaskedAsNIOUnmasksItWhateverItsLengthAndTheExtensionDataBeforeIt() {
        for length in [0, 1, 3, 4, 5, 12, 127, 1000] {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 200) }
            for extensionLength in [nil, 1, 2, 3, 4] {
                var frame = WebSocketFrame(
                    fin: true, opcode: .binary, maskKey: .random(), data: ByteBuffer(bytes: bytes),
                    extensionData: extensionLength.map { ByteBuffer(repeating: 7, count: $0) })
                frame.data.webSocketMask(frame.maskKey!, indexOffset: (extensionLength ?? 0) % 4)
                #expect(MessageAssembler.payload(of: frame) == Data(frame.unmaskedData.readableBytesView))
                #expect(MessageAssembler.payload(of: frame) == Data(bytes))
            }
        }
        let unmasked = WebSocketFrame(fin: true, opcode: .binary, data: ByteBuffer(bytes: [1, 2, 3]))
        #expect(MessageAssembler.payload(of: unmasked) == Data([1, 2, 3]))
    }

    @Test func textInOneFrameIsCheckedForUTF8AsTextInFragmentsIs() {
        var assembler = MessageAssembler(maxMessageSize: 100, sender: .client)
        #expect(assembler.add(frame(.text, "plain ascii")) == .message(.text, Data("plain ascii".utf8), fragments: [11]))
        #expect(assembler.add(frame(.text, "héllo wörld")) == .message(.text, Data("héllo wörld".utf8), fragments: [13]))
        #expect(assembler.add(frame(.text, [0x61, 0x62, 0xC3])) == .refused(.invalidUTF8))
        #expect(assembler.add(frame(.text, [0xED, 0xA0, 0x80])) == .refused(.invalidUTF8))
        #expect(assembler.add(frame(.text, "ok")) == .message(.text, Data("ok".utf8), fragments: [2]))
        var small = MessageAssembler(maxMessageSize: 4, sender: .client)
        #expect(small.add(frame(.binary, "12345")) == .refused(.tooLarge))
        #expect(small.add(frame(.binary, "1234")) == .message(.binary, Data("1234".utf8), fragments: [4]))
    }

    @Test func wsTimingAcceptsRecordedFastOrAFactorAndNothingElse() {
        #expect(ReplayTiming.scale(parsing: "recorded") == 1)
        #expect(ReplayTiming.scale(parsing: "FAST") == 0)
        #expect(ReplayTiming.scale(parsing: "0.5") == 0.5)
        #expect(ReplayTiming.scale(parsing: "-1") == nil)
        #expect(ReplayTiming.scale(parsing: "inf") == nil)
        #expect(ReplayTiming.scale(parsing: "slow") == nil)
    }
}
