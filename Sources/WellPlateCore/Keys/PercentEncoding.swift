/// Byte-level percent-encoding normalization (RFC 3986 §6.2.2.1-2), shared by paths, queries and
/// form bodies. Works on UTF-8 bytes so the proxy's hot path never round-trips through `URLComponents`.
/// The rules are described in docs/matching.md.
package enum PercentEncoding {
    enum ByteClass: UInt8 {
        /// ALPHA DIGIT - . _ ~: written literally, and decoded when found escaped.
        case unreserved
        /// Sub-delims and `: @ / ?`: meaningful to servers, so kept exactly as they came (literal or escaped).
        case literal
        /// Everything else (space, controls, non-ASCII, `" < > [ \ ] ^ ` { | }`, `#`): always escaped,
        /// which also keeps a key free of spaces.
        case escaped
    }

    static let percent = UInt8(ascii: "%")
    static let plus = UInt8(ascii: "+")

    private static let classes: [ByteClass] = (0...255).map { value -> ByteClass in
        let byte = UInt8(value)
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return .unreserved
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"), UInt8(ascii: "?"):
            return .literal
        default:
            return .escaped
        }
    }

    private static let upperHex: [UInt8] = Array("0123456789ABCDEF".utf8)

    @inline(__always)
    static func byteClass(_ byte: UInt8) -> ByteClass {
        classes[Int(byte)]
    }

    @inline(__always)
    package static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    @inline(__always)
    static func appendEscaped(_ byte: UInt8, to output: inout [UInt8]) {
        output.append(percent)
        output.append(upperHex[Int(byte >> 4)])
        output.append(upperHex[Int(byte & 0x0f)])
    }

    /// Appends `input` normalized: escaped unreserved characters decoded, the hex digits of other
    /// escapes upper-cased, a `%` that starts no valid escape and bytes that may not appear literally
    /// escaped. With `plusIsSpace` (queries and form bodies), a literal `+` becomes `%20`.
    static func appendNormalized(_ input: UnsafeBufferPointer<UInt8>, to output: inout [UInt8], plusIsSpace: Bool) {
        var index = 0
        let count = input.count
        while index < count {
            let byte = input[index]
            if byte == percent {
                if index + 2 < count, let high = hexValue(input[index + 1]), let low = hexValue(input[index + 2]) {
                    let decoded = high << 4 | low
                    if byteClass(decoded) == .unreserved {
                        output.append(decoded)
                    } else {
                        appendEscaped(decoded, to: &output)
                    }
                    index += 3
                } else {
                    appendEscaped(percent, to: &output)
                    index += 1
                }
                continue
            }
            if plusIsSpace, byte == plus {
                appendEscaped(UInt8(ascii: " "), to: &output)
            } else if byteClass(byte) == .escaped {
                appendEscaped(byte, to: &output)
            } else {
                output.append(byte)
            }
            index += 1
        }
    }

    /// Fully decodes already-normalized text (every `%` starts a valid escape), for comparing names
    /// with the configured ignore lists.
    static func decode(_ normalized: ArraySlice<UInt8>) -> [UInt8] {
        var output = [UInt8]()
        output.reserveCapacity(normalized.count)
        var index = normalized.startIndex
        while index < normalized.endIndex {
            let byte = normalized[index]
            if byte == percent, index + 2 < normalized.endIndex,
                let high = hexValue(normalized[index + 1]), let low = hexValue(normalized[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(byte)
                index += 1
            }
        }
        return output
    }
}
