/// Locates bad UTF-8 for error messages. The standard library validates strings but only says
/// whether they are valid; this says where they are not.
enum UTF8Validation {
    /// The offset of the first byte that does not start a well-formed sequence (Unicode Table 3-7:
    /// no overlong forms, no surrogates, nothing above U+10FFFF), or `nil` when all is well.
    static func firstInvalidOffset(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = 0
        while index < bytes.count {
            guard let length = sequenceLength(at: index, in: bytes) else { return index }
            index += length
        }
        return nil
    }

    /// The scalar whose sequence starts at `index`, or `nil` when the bytes there are not valid UTF-8.
    static func scalar(at index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Unicode.Scalar? {
        guard let length = sequenceLength(at: index, in: bytes) else { return nil }
        let sequence = UnsafeBufferPointer(rebasing: bytes[index..<index + length])
        return String(validating: sequence, as: UTF8.self)?.unicodeScalars.first
    }

    private static func sequenceLength(at index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let lead = bytes[index]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            secondRange = 0x80...0x9F
        case 0xF0:
            length = 4
            secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            secondRange = 0x80...0x8F
        default: return nil
        }
        guard index + length <= bytes.count, secondRange.contains(bytes[index + 1]) else { return nil }
        for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 {
            return nil
        }
        return length
    }
}
