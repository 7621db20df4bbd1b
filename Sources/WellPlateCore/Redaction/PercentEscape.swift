/// Percent-escapes (`%3D`) of separators inside a query, form or path value: a client that
/// puts `sid=VALUE` into a query value sends `sid%3DVALUE`, and the value must still be found
/// there as a token of its own, by the rules' scrubbing and by the learned secrets alike.
enum PercentEscape {
    /// Whether the three bytes before `end` are a percent-escape of a byte that ends a token
    /// (`%3D`, `%26`, `%3B`, `%2F`, `%20`, ...: anything but a letter, a digit or `-._~`).
    static func separator<Bytes: RandomAccessCollection<UInt8>>(endingAt end: Int, in bytes: Bytes) -> Bool where Bytes.Index == Int {
        guard end >= 3, end <= bytes.count else { return false }
        let base = bytes.startIndex
        guard bytes[base + end - 3] == UInt8(ascii: "%"), let high = PercentEncoding.hexValue(bytes[base + end - 2]),
            let low = PercentEncoding.hexValue(bytes[base + end - 1])
        else { return false }
        return !TokenBytes.isUnreserved(high << 4 | low)
    }

    /// Where each separator escape in `bytes[range]` starts.
    static func separators(in bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> [Int] {
        var found: [Int] = []
        var index = range.lowerBound
        while index + 3 <= range.upperBound {
            if bytes[index] == UInt8(ascii: "%"), separator(endingAt: index + 3, in: bytes) {
                found.append(index)
                index += 3
            } else {
                index += 1
            }
        }
        return found
    }
}
