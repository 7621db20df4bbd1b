/// A set of ASCII bytes, tested with two words: what the secret scanner and the value judgements
/// (`Entropy`, `SecretCookies`) classify bytes with.
package struct ByteClass: Sendable {
    private let low: UInt64
    private let high: UInt64

    package init(_ characters: String) {
        var low: UInt64 = 0
        var high: UInt64 = 0
        for byte in characters.utf8 {
            if byte < 64 { low |= 1 << UInt64(byte) } else if byte < 128 { high |= 1 << UInt64(byte - 64) }
        }
        self.low = low
        self.high = high
    }

    @inline(__always)
    package func contains(_ byte: UInt8) -> Bool {
        byte < 64 ? low & (1 << UInt64(byte)) != 0 : byte < 128 && high & (1 << UInt64(byte - 64)) != 0
    }

    package static let upper = ByteClass("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    package static let digits = ByteClass("0123456789")
    package static let upperDigits = ByteClass("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    package static let alphanumeric = ByteClass("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
    package static let word = ByteClass("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
    package static let wordDash = ByteClass("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
    package static let lowerHex = ByteClass("0123456789abcdef")
    package static let hex = ByteClass("0123456789abcdefABCDEF")
    package static let base64 = ByteClass("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
    package static let base64URL = ByteClass("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
}
