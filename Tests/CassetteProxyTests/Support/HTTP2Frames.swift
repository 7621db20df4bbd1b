/// Raw HTTP/2 frames (RFC 9113 §4.1) for tests that send what no client library would: floods,
/// rapid resets, broken frames.
enum HTTP2Frames {
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    enum Kind: UInt8 {
        case data = 0, headers = 1, rstStream = 3, settings = 4, ping = 6, goAway = 7, windowUpdate = 8
    }

    /// One frame: the 9-byte header, then `payload`.
    static func frame(_ kind: Kind, flags: UInt8 = 0, stream: UInt32 = 0, payload: [UInt8] = []) -> [UInt8] {
        let length = UInt32(payload.count)
        return [UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), kind.rawValue, flags]
            + [UInt8(stream >> 24 & 0x7F), UInt8(stream >> 16 & 0xFF), UInt8(stream >> 8 & 0xFF), UInt8(stream & 0xFF)] + payload
    }

    /// `GET /` with `:authority: x`, HPACK without Huffman: the static table's `:method GET`,
    /// `:scheme http`, `:path /`, and `:authority` as a literal without indexing.
    static let getRoot: [UInt8] = [0x82, 0x86, 0x84, 0x01, 0x01, 0x78]

    /// HEADERS with END_HEADERS and END_STREAM.
    static func request(stream: UInt32, block: [UInt8] = getRoot) -> [UInt8] {
        frame(.headers, flags: 0x05, stream: stream, payload: block)
    }

    /// RST_STREAM(CANCEL).
    static func cancel(stream: UInt32) -> [UInt8] {
        frame(.rstStream, stream: stream, payload: [0, 0, 0, 0x08])
    }

    static func ping(_ value: UInt8) -> [UInt8] {
        frame(.ping, payload: [UInt8](repeating: value, count: 8))
    }

    /// The kind and the error code of every frame in `bytes` (GOAWAY's error code is at payload
    /// offset 4, RST_STREAM's at 0), until bytes run out.
    static func frames(in bytes: [UInt8]) -> [(kind: UInt8, stream: UInt32, errorCode: UInt32?)] {
        var found: [(kind: UInt8, stream: UInt32, errorCode: UInt32?)] = []
        var offset = 0
        while offset + 9 <= bytes.count {
            let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            let kind = bytes[offset + 3]
            let stream = UInt32(bytes[offset + 5] & 0x7F) << 24 | UInt32(bytes[offset + 6]) << 16 | UInt32(bytes[offset + 7]) << 8 | UInt32(bytes[offset + 8])
            let payload = offset + 9
            guard payload + length <= bytes.count else { break }
            let codeAt = kind == Kind.goAway.rawValue ? payload + 4 : kind == Kind.rstStream.rawValue ? payload : nil
            let code = codeAt.map { at in bytes[at..<at + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
            found.append((kind, stream, code))
            offset = payload + length
        }
        return found
    }

    /// Every whole frame in `bytes`, with its flags and payload.
    static func payloads(in bytes: [UInt8]) -> [(kind: UInt8, flags: UInt8, stream: UInt32, payload: [UInt8])] {
        var found: [(kind: UInt8, flags: UInt8, stream: UInt32, payload: [UInt8])] = []
        var offset = 0
        while offset + 9 <= bytes.count {
            let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            let stream = UInt32(bytes[offset + 5] & 0x7F) << 24 | UInt32(bytes[offset + 6]) << 16 | UInt32(bytes[offset + 7]) << 8 | UInt32(bytes[offset + 8])
            guard offset + 9 + length <= bytes.count else { break }
            found.append((bytes[offset + 3], bytes[offset + 4], stream, Array(bytes[offset + 9..<offset + 9 + length])))
            offset += 9 + length
        }
        return found
    }

    /// ENHANCE_YOUR_CALM, the error code of a refused flood.
    static let enhanceYourCalm: UInt32 = 0x0B
}
