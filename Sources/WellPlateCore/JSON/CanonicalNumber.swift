/// The canonical decimal text of a JSON number: one text per value, so that `1`, `1.0` and `1e0`
/// hash alike. `JSONWriter` writes numbers with it in the canonical form (`CanonicalJSON`); it
/// depends on neither, so the writer and the canonical form do not call each other in a circle.
enum CanonicalNumber {
    /// Integers beyond 64 bits are exact: their digits are written as they came, only in canonical notation.
    static func append(bigInteger literal: String, to output: inout [UInt8]) {
        let negative = literal.utf8.first == UInt8(ascii: "-")
        append(negative: negative, digits: Array(literal.utf8.dropFirst(negative ? 1 : 0)), exponent: 0, to: &output)
    }

    /// A finite `Double` by its shortest round-trip decimal digits, which Swift's `description` gives
    /// (`0.1`, `1e-07`, `1e+21`, `-0.0`): every literal that parses to the same `Double` gets one text.
    static func append(_ value: Double, to output: inout [UInt8]) {
        var text = value.description
        text.withUTF8 { bytes in
            var digits = [UInt8]()
            digits.reserveCapacity(bytes.count)
            var fractionDigits = 0
            var isInFraction = false
            var index = 0
            let negative = bytes.first == UInt8(ascii: "-")
            if negative { index += 1 }
            while index < bytes.count, bytes[index] | 0x20 != UInt8(ascii: "e") {
                if bytes[index] == UInt8(ascii: ".") {
                    isInFraction = true
                } else {
                    digits.append(bytes[index])
                    if isInFraction { fractionDigits += 1 }
                }
                index += 1
            }
            var exponent = 0
            if index < bytes.count {
                let exponentText = String(decoding: UnsafeBufferPointer(rebasing: bytes[(index + 1)...]), as: UTF8.self)
                // A Double's decimal exponent lies within ±324, so the conversion cannot fail.
                exponent = Int(exponentText) ?? 0
            }
            append(negative: negative, digits: digits, exponent: exponent - fractionDigits, to: &output)
        }
    }

    /// Writes the decimal number `(negative ? -1 : 1) × digits × 10^exponent` canonically: `1.0`, `1`,
    /// `10e-1` and `0.1e1` all become `1`; `-0` becomes `0`. Formatted like JavaScript's
    /// `Number#toString` (plain digits from 1e-6 up to 1e21, exponent notation outside), but exactly,
    /// without rounding to a double.
    static func append(negative: Bool, digits: [UInt8], exponent: Int, to output: inout [UInt8]) {
        let zero = UInt8(ascii: "0")
        guard let first = digits.firstIndex(where: { $0 != zero }) else {
            output.append(zero)
            return
        }
        var last = digits.count - 1
        while digits[last] == zero { last -= 1 }
        let significant = digits[first...last]
        let scale = exponent + (digits.count - 1 - last)
        let count = significant.count
        let point = count + scale
        if negative { output.append(UInt8(ascii: "-")) }
        if scale >= 0, point <= 21 {
            output.append(contentsOf: significant)
            output.append(contentsOf: repeatElement(zero, count: scale))
        } else if scale < 0, point > 0 {
            output.append(contentsOf: significant.prefix(point))
            output.append(UInt8(ascii: "."))
            output.append(contentsOf: significant.dropFirst(point))
        } else if point <= 0, point > -6 {
            output.append(contentsOf: "0.".utf8)
            output.append(contentsOf: repeatElement(zero, count: -point))
            output.append(contentsOf: significant)
        } else {
            output.append(significant[first])
            if count > 1 {
                output.append(UInt8(ascii: "."))
                output.append(contentsOf: significant.dropFirst())
            }
            output.append(UInt8(ascii: "e"))
            output.append(contentsOf: String(point - 1).utf8)
        }
    }
}
