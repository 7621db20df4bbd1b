import Foundation
import NIOCore
import NIOWebSocket
import Testing
import WellPlateCore

@testable import CassetteProxy

/// Frames joined into messages as the recorder stores them: fragment sizes kept, control frames
/// standing alone, the size limit applied to the whole message, frames out of order refused.
@Suite("WebSocket message assembly")
struct MessageAssemblerTests {
    private func frame(_ opcode: WebSocketOpcode, _ text: String, fin: Bool = true, masked: Bool = true) -> WebSocketFrame {
        var frame = WebSocketFrame(fin: fin, opcode: opcode, maskKey: masked ? .random() : nil, data: ByteBuffer(string: text))
        // As the decoder hands it over: the payload still masked.
        if masked { frame.data.webSocketMask(frame.maskKey!) }
        return frame
    }

    @Test func aFragmentedMessageIsJoinedUnmaskedWithItsFragmentSizesAndAPingInBetweenStandsAlone() {
        var assembler = MessageAssembler(maxMessageSize: 100)
        #expect(assembler.add(frame(.text, "hel", fin: false)) == .partial)
        #expect(assembler.add(frame(.ping, "p")) == .message(.ping, Data("p".utf8), fragments: [1]))
        #expect(assembler.add(frame(.continuation, "lo ", fin: false)) == .partial)
        #expect(assembler.add(frame(.continuation, "world")) == .message(.text, Data("hello world".utf8), fragments: [3, 3, 5]))
        #expect(assembler.add(frame(.binary, "x", masked: false)) == .message(.binary, Data("x".utf8), fragments: [1]))
    }

    @Test func aMessageOverTheLimitIsRefusedEvenWhenEachFragmentFits() {
        var assembler = MessageAssembler(maxMessageSize: 8)
        #expect(assembler.add(frame(.binary, "12345", fin: false)) == .partial)
        #expect(assembler.add(frame(.continuation, "6789")) == .tooLarge)
    }

    @Test func aContinuationWithNoMessageOrANewMessageInsideOneIsOutOfOrder() {
        var assembler = MessageAssembler(maxMessageSize: 100)
        #expect(assembler.add(frame(.continuation, "x")) == .outOfOrder)
        #expect(assembler.add(frame(.text, "a", fin: false)) == .partial)
        #expect(assembler.add(frame(.text, "b")) == .outOfOrder)
    }

    @Test func wsTimingAcceptsRecordedFastOrAFactorAndNothingElse() {
        #expect(WebSocketOptions.timingScale(parsing: "recorded") == 1)
        #expect(WebSocketOptions.timingScale(parsing: "FAST") == 0)
        #expect(WebSocketOptions.timingScale(parsing: "0.5") == 0.5)
        #expect(WebSocketOptions.timingScale(parsing: "-1") == nil)
        #expect(WebSocketOptions.timingScale(parsing: "inf") == nil)
        #expect(WebSocketOptions.timingScale(parsing: "slow") == nil)
    }
}
