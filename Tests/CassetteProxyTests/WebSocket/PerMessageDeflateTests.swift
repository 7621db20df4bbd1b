import Foundation
import NIOCore
import NIOHTTP1
import NIOWebSocket
import Testing

@testable import CassetteForward
@testable import CassetteKernel
@testable import CassetteProxy
@testable import CassetteServing
@testable import CassetteUIServer
@testable import CassetteWebSocket

/// permessage-deflate (RFC 7692) as the proxy agrees to it and applies it: offers read as §7.1
/// says (an invalid one declined, the next tried), messages compressed and inflated round trip
/// across messages with and without context takeover, and what an inflated message may not do.
@Suite("WebSocket permessage-deflate")
struct PerMessageDeflateTests {
    private func headers(_ values: String...) -> HTTPHeaders {
        HTTPHeaders(values.map { ("Sec-WebSocket-Extensions", $0) })
    }

    @Test func theFirstOfferTheProxyCanHonourIsAnsweredWithTheServerParametersItAskedFor() {
        #expect(PerMessageDeflate.accepting(headers("permessage-deflate; client_max_window_bits"))?.responseHeader == "permessage-deflate")
        let agreed = PerMessageDeflate.accepting(headers("permessage-deflate; server_no_context_takeover; server_max_window_bits=10"))
        #expect(agreed?.responseHeader == "permessage-deflate; server_no_context_takeover; server_max_window_bits=10")
        // A window of 8 (which zlib's raw deflate cannot use), an unknown parameter, a repeated
        // one and a bad value are declined; the client's later offer is taken.
        let offers = headers(
            "permessage-deflate; server_max_window_bits=8, permessage-deflate; x=1",
            "permessage-deflate; server_no_context_takeover; server_no_context_takeover",
            "permessage-deflate; server_max_window_bits=09, permessage-deflate; server_max_window_bits=\"12\"")
        #expect(PerMessageDeflate.accepting(offers)?.responseHeader == "permessage-deflate; server_max_window_bits=12")
        #expect(PerMessageDeflate.accepting(headers("x-webkit-deflate-frame")) == nil)
        #expect(PerMessageDeflate.accepting(HTTPHeaders()) == nil)
    }

    @Test func onlyValidPermessageDeflateOffersGoToTheUpstreamAndItsAnswerMustBeOneOfThem() throws {
        let offered = headers("x-webkit-deflate-frame, permessage-deflate; client_max_window_bits", "permessage-deflate; y")
        #expect(PerMessageDeflate.forwardedOffers(offered) == "permessage-deflate; client_max_window_bits")
        #expect(PerMessageDeflate.forwardedOffers(headers("x-webkit-deflate-frame")) == nil)
        let answer = HTTPHeaders([("Sec-WebSocket-Extensions", "permessage-deflate; server_max_window_bits=12; client_max_window_bits=12")])
        #expect(try PerMessageDeflate.agreed(in: answer)?.serverMaxWindowBits == 12)
        #expect(try PerMessageDeflate.agreed(in: HTTPHeaders()) == nil)
        #expect(throws: UpstreamWebSocketError.self) {
            try PerMessageDeflate.agreed(in: HTTPHeaders([("Sec-WebSocket-Extensions", "x-webkit-deflate-frame")]))
        }
        // An answer may not leave `client_max_window_bits` without its value (RFC 7692 §7.1.2.2).
        #expect(throws: UpstreamWebSocketError.self) {
            try PerMessageDeflate.agreed(in: HTTPHeaders([("Sec-WebSocket-Extensions", "permessage-deflate; client_max_window_bits")]))
        }
    }

    @Test(arguments: [false, true])
    func messagesCompressedOneAfterAnotherInflateBackWithOrWithoutContextTakeover(noContextTakeover: Bool) throws {
        var agreed = PerMessageDeflate()
        agreed.serverNoContextTakeover = noContextTakeover
        agreed.serverMaxWindowBits = 9
        let deflater = try MessageDeflater(agreed)
        let inflater = try MessageInflater()
        let messages = ["", #"{"type": "tick", "n": 1}"#, #"{"type": "tick", "n": 2}"#, String(repeating: "abcdefgh", count: 1000)]
        var sizes: [Int] = []
        for message in messages {
            let compressed = try deflater.deflate(ByteBuffer(string: message), allocator: ByteBufferAllocator())
            sizes.append(compressed.readableBytes)
            // RFC 7692 §7.2.1: the sync flush's `00 00 ff ff` is not sent.
            #expect(compressed.readableBytesView.suffix(4) != [0, 0, 0xFF, 0xFF])
            #expect(inflater.inflate(Data(compressed.readableBytesView), limit: 1 << 20) == .success(Data(message.utf8)))
        }
        // §7.2.3.1: an empty message compresses to the single byte 0x00.
        #expect(sizes[0] == 1)
        #expect(sizes[3] < 100)
    }

    @Test func aMessageThatInflatesBeyondTheLimitIs1009AndBytesThatAreNotDeflateAre1002() throws {
        let bomb = try MessageDeflater(PerMessageDeflate()).deflate(ByteBuffer(repeating: 0, count: 1 << 20), allocator: ByteBufferAllocator())
        #expect(bomb.readableBytes < 2048)
        #expect(try MessageInflater().inflate(Data(bomb.readableBytesView), limit: 1 << 16) == .failure(.tooLarge))
        #expect(try MessageInflater().inflate(Data(bomb.readableBytesView), limit: 1 << 20).map(\.count) == .success(1 << 20))
        #expect(try MessageInflater().inflate(Data([0xFF, 0xFF, 0xFF]), limit: 100) == .failure(.invalidCompressedData))
    }

    private func frame(_ opcode: WebSocketOpcode, _ data: ByteBuffer, fin: Bool = true, rsv1: Bool) -> WebSocketFrame {
        var frame = WebSocketFrame(fin: fin, rsv1: rsv1, opcode: opcode, maskKey: .random(), data: data)
        frame.data.webSocketMask(frame.maskKey!)
        return frame
    }

    @Test func anAssemblerUnderDeflateInflatesACompressedMessageAndRefusesRSV1WhereTheRFCForbidsIt() throws {
        let compressed = try MessageDeflater(PerMessageDeflate()).deflate(ByteBuffer(string: "echo me"), allocator: ByteBufferAllocator())
        var assembler = MessageAssembler(maxMessageSize: 100, sender: .client, inflater: try MessageInflater())
        // Split across two frames: only the first says it is compressed.
        let half = compressed.readableBytes / 2
        #expect(assembler.add(frame(.text, compressed.getSlice(at: compressed.readerIndex, length: half)!, fin: false, rsv1: true)) == .partial)
        #expect(
            assembler.add(frame(.continuation, compressed.getSlice(at: compressed.readerIndex + half, length: compressed.readableBytes - half)!, rsv1: false))
                == .message(.text, Data("echo me".utf8), fragments: [half, compressed.readableBytes - half]))
        // An uncompressed message is still allowed.
        #expect(assembler.add(frame(.text, ByteBuffer(string: "plain"), rsv1: false)) == .message(.text, Data("plain".utf8), fragments: [5]))
        #expect(assembler.add(frame(.ping, ByteBuffer(string: "p"), rsv1: true)) == .refused(.reservedBits))
        #expect(assembler.add(frame(.text, ByteBuffer(string: "a"), fin: false, rsv1: false)) == .partial)
        #expect(assembler.add(frame(.continuation, ByteBuffer(string: "b"), rsv1: true)) == .refused(.reservedBits))
        // Without the agreement, RSV1 is a reserved bit as before.
        var plain = MessageAssembler(maxMessageSize: 100, sender: .client)
        #expect(plain.add(frame(.text, compressed, rsv1: true)) == .refused(.reservedBits))
    }
}
