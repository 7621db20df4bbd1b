import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import CassetteKernel

/// `RequestHeadBytesHandler` in front of NIO's request decoder and its `Observer` behind it, as
/// the kernel's pipeline has them: a request head's bytes that are not UTF-8 reach the proxy
/// escaped, so `RawHeaderBytes.field(name:value:)` gives them back as the client sent them, while
/// bodies, which the observer marks, are handed over untouched.
@Suite("Request head bytes kept")
struct RequestHeadBytesHandlerTests {
    struct Connection {
        let channel = EmbeddedChannel()
        let behind = InboundRecorder<HTTPServerRequestPart>()

        init() throws {
            let escaper = RequestHeadBytesHandler()
            let pipeline = channel.pipeline.syncOperations
            try pipeline.addHandler(escaper)
            try pipeline.addHandler(ByteToMessageHandler(HTTPRequestDecoder()))
            try pipeline.addHandler(RequestHeadBytesHandler.Observer(escaper))
            try pipeline.addHandler(behind)
        }

        func send(_ bytes: [UInt8]) throws {
            try channel.writeInbound(ByteBuffer(bytes: bytes))
        }

        /// One read per byte: the worst a client's segments can do.
        func sendByteByByte(_ bytes: [UInt8]) throws {
            for byte in bytes { try send([byte]) }
        }

        var heads: [HTTPRequestHead] {
            behind.reads.compactMap { if case .head(let head) = $0 { head } else { nil } }
        }

        /// The bodies' bytes, each request's chunks joined.
        var bodies: [[UInt8]] {
            var bodies: [[UInt8]] = []
            var current: [UInt8]?
            for part in behind.reads {
                switch part {
                case .head: current = []
                case .body(let chunk): current? += chunk.readableBytesView
                case .end:
                    bodies.append(current ?? [])
                    current = nil
                }
            }
            return bodies
        }

        /// The value of `name` in the `index`th head as the proxy sends it upstream.
        func bytes(of name: String, inHead index: Int = 0) -> [UInt8]? {
            guard heads.indices.contains(index), let value = heads[index].headers.first(name: name) else { return nil }
            return RawHeaderBytes.field(name: HTTPField.Name(name)!, value: value).withUnsafeBytesOfValue { Array($0) }
        }
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
    static let latin1 = bytes("caf") + [0xE9]

    static func head(_ target: String = "/", name: [UInt8], extra: String = "") -> [UInt8] {
        bytes("GET \(target) HTTP/1.1\r\nHost: x\r\nX-Name: ") + name + bytes("\r\n\(extra)\r\n")
    }

    @Test func aLatin1HeaderValueIsKeptByteForByte() throws {
        let connection = try Connection()
        try connection.send(Self.head(name: Self.latin1))
        #expect(connection.heads.count == 1)
        #expect(connection.heads.first?.headers.first(name: "X-Name") == "caf\u{F7E9}")
        #expect(connection.bytes(of: "X-Name") == Self.latin1)
    }

    @Test func everyByteThatIsNotUTF8IsKept() throws {
        let connection = try Connection()
        let bytes: [UInt8] = [0x80, 0xA0, 0xBF, 0xC0, 0xC1, 0xF5, 0xFE, 0xFF, 0x41]
        try connection.send(Self.head(name: bytes))
        #expect(connection.bytes(of: "X-Name") == bytes)
    }

    @Test func aUTF8ValueAndAnASCIIRequestAreHandedOverAsTheyAre() throws {
        let connection = try Connection()
        try connection.send(Self.head(name: Self.bytes("café ☕")))
        try connection.send(Self.head("/ascii", name: Self.bytes("plain")))
        #expect(connection.heads.map { $0.headers.first(name: "X-Name") } == ["café ☕", "plain"])
        #expect(connection.heads.map(\.uri) == ["/", "/ascii"])
    }

    @Test func aBodyOfKnownLengthIsUntouchedAndTheHeadPipelinedAfterItIsKeptAgain() throws {
        let connection = try Connection()
        let body: [UInt8] = [0xE9, 0xFF, 0x00, 0xEF, 0x9F, 0xA9]
        let first = Self.bytes("POST /upload HTTP/1.1\r\nHost: x\r\nX-Name: ") + Self.latin1 + Self.bytes("\r\nContent-Length: \(body.count)\r\n\r\n")
        try connection.send(first + body + Self.head("/next", name: [0xFC]))
        #expect(connection.heads.map(\.uri) == ["/upload", "/next"])
        #expect(connection.bodies == [body, []])
        #expect(connection.bytes(of: "X-Name", inHead: 0) == Self.latin1)
        #expect(connection.bytes(of: "X-Name", inHead: 1) == [0xFC])
    }

    @Test func aBodySplitOverReadsIsUntouched() throws {
        let connection = try Connection()
        let body: [UInt8] = [0xE9, 0x41, 0xFF, 0x42, 0xC3]
        let head = Self.bytes("POST /upload HTTP/1.1\r\nHost: x\r\nX-Name: ") + Self.latin1 + Self.bytes("\r\nContent-Length: \(body.count)\r\n\r\n")
        try connection.send(head + body.prefix(2))
        try connection.send(Array(body.dropFirst(2)) + Self.head("/next", name: [0xE9]))
        #expect(connection.bodies == [body, []])
        #expect(connection.bytes(of: "X-Name", inHead: 1) == [0xE9])
    }

    @Test func aChunkedBodyIsUntouched() throws {
        let connection = try Connection()
        let head = Self.bytes("POST /upload HTTP/1.1\r\nHost: x\r\nX-Name: ") + Self.latin1 + Self.bytes("\r\nTransfer-Encoding: chunked\r\n\r\n")
        try connection.send(head + Self.bytes("3\r\n") + [0xE9, 0xFF, 0x41] + Self.bytes("\r\n0\r\n\r\n"))
        #expect(connection.bodies == [[0xE9, 0xFF, 0x41]])
        #expect(connection.bytes(of: "X-Name") == Self.latin1)
    }

    /// As documented: the rest of a read that continues a chunked body is handed over unchanged,
    /// so a head pipelined behind it in the same read arrives as NIO decodes it.
    @Test func aHeadPipelinedBehindAChunkedBodyInTheSameReadIsNotKept() throws {
        let connection = try Connection()
        let chunked = Self.bytes("POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        try connection.send(chunked)
        try connection.send(Self.bytes("1\r\n") + [0xFF] + Self.bytes("\r\n0\r\n\r\n") + Self.head("/next", name: Self.latin1))
        #expect(connection.heads.map(\.uri) == ["/upload", "/next"])
        #expect(connection.heads.last?.headers.first(name: "X-Name") == "caf\u{FFFD}")
    }

    @Test func aHeadSentByteByByteKeepsTheBytesThatCanStartNoUTF8Sequence() throws {
        let connection = try Connection()
        let bytes: [UInt8] = [0x80, 0xBF, 0xC0, 0xC1, 0xF5, 0xFF]
        try connection.sendByteByByte(Self.head(name: bytes))
        #expect(connection.bytes(of: "X-Name") == bytes)
    }

    /// A byte that may start a UTF-8 sequence (0xC2–0xF4) and ends a read counts as valid (the
    /// sequence may go on in the next read), so it reaches the decoder as it is, which makes it
    /// U+FFFD. A client's segments rarely end inside a header, but nothing stops them.
    @Test func aLatin1LetterThatEndsAReadIsKept() throws {
        let connection = try Connection()
        let head = Self.head(name: Self.latin1)
        let cut = Self.bytes("GET / HTTP/1.1\r\nHost: x\r\nX-Name: caf").count + 1
        try connection.send(Array(head.prefix(cut)))
        try connection.send(Array(head.dropFirst(cut)))
        withKnownIssue("RequestHeadBytesHandler leaves a possible UTF-8 lead byte at the end of a read to the decoder") {
            #expect(connection.bytes(of: "X-Name") == Self.latin1)
        }
    }

    /// The other side of the same rule: the continuation bytes of a valid character that starts in
    /// one read are escaped as invalid in the next, so the character is lost.
    @Test func aUTF8CharacterSplitOverTwoReadsIsKept() throws {
        let connection = try Connection()
        let head = Self.head(name: Self.bytes("café"))
        let cut = Self.bytes("GET / HTTP/1.1\r\nHost: x\r\nX-Name: caf").count + 1
        try connection.send(Array(head.prefix(cut)))
        try connection.send(Array(head.dropFirst(cut)))
        withKnownIssue("RequestHeadBytesHandler escapes the continuation bytes of a character split over two reads") {
            #expect(connection.heads.first?.headers.first(name: "X-Name") == "café")
        }
    }

    /// A sequence cut off by the end of the read counts as valid: the next read may complete it.
    @Test(
        arguments: [
            ([0x41, 0xE9, 0x41], 1), ([0xC3, 0xA9, 0xE9, 0x0D], 2), ([0xED, 0xA0, 0x80], 0), ([0xF4, 0x90, 0x80, 0x80], 0),
            ([0xF0, 0x9F, 0x98, 0x80, 0xC0], 4), ([0xE2, 0x98, 0x95], nil), ([0x41, 0xE9], nil), ([0x41, 0xE2, 0x98], nil),
        ] as [([UInt8], Int?)])
    func theFirstInvalidByteIsWhereUTF8Fails(bytes: [UInt8], offset: Int?) {
        #expect(RequestHeadBytesHandler.firstInvalidByte(ByteBuffer(bytes: bytes).readableBytesView) == offset)
    }
}
