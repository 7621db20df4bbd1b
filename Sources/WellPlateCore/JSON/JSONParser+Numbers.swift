// Numbers: integers accumulate exactly (or stay literal beyond 64 bits), fractions take a fast exact path when they can.

extension JSONParser {
    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = position
        var index = position
        let isNegative = bytes[index] == UInt8(ascii: "-")
        if isNegative { index += 1 }

        let integerStart = index
        guard index < bytes.count else {
            throw error(.unexpectedEndOfInput, at: index, "the input ends after '-'; expected digits")
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) {
                throw error(.invalidNumber, at: start, "numbers cannot have leading zeros; write 7, not 07 (or quote it as a string)")
            }
        } else if isDigit(bytes[index]) {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        } else {
            throw error(.invalidNumber, at: index, "unexpected \(describeByte(at: index)) after '-'; expected digits")
        }
        let integerEnd = index

        var isInteger = true
        var fractionStart = index
        var fractionEnd = index
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            fractionStart = index
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            fractionEnd = index
            guard fractionEnd > fractionStart else {
                throw error(.invalidNumber, at: index, "expected digits after the decimal point; write 1.0 or 1, not 1.")
            }
        }

        var exponent = 0
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            var exponentIsNegative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                exponentIsNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            let exponentStart = index
            while index < bytes.count, isDigit(bytes[index]) {
                // Saturate: anything this large over- or underflows a Double anyway.
                if exponent < 100_000 { exponent = exponent * 10 + Int(bytes[index] - UInt8(ascii: "0")) }
                index += 1
            }
            guard index > exponentStart else {
                throw error(.invalidNumber, at: index, "expected digits in the exponent; write 1e5 or 1e-5")
            }
            if exponentIsNegative { exponent = -exponent }
        }
        position = index

        if isInteger {
            var value: Int64 = 0
            for digitIndex in integerStart..<integerEnd {
                let digit = Int64(bytes[digitIndex] - UInt8(ascii: "0"))
                let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
                // Accumulating negative values reaches Int64.min, which has no positive counterpart.
                let (next, overflow2) =
                    isNegative
                    ? shifted.subtractingReportingOverflow(digit)
                    : shifted.addingReportingOverflow(digit)
                if overflow1 || overflow2 {
                    return .bigInteger(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
                }
                value = next
            }
            return .integer(value)
        }

        if let fast = Self.exactDouble(
            integerDigits: integerStart..<integerEnd, fractionDigits: fractionStart..<fractionEnd,
            in: bytes, exponent: exponent - (fractionEnd - fractionStart)
        ) {
            return .number(isNegative ? -fast : fast)
        }
        let literal = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(literal), value.isFinite else {
            throw error(
                .numberOutOfRange, at: start,
                "the number \(literal.prefix(40)) is too large for a 64-bit floating-point value; send it as a string")
        }
        return .number(value)
    }

    static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// Clinger's fast path: a decimal mantissa below 2^53 times a power of ten up to 10^22 is
    /// converted exactly by one IEEE multiplication or division. Other numbers return `nil` and go
    /// through the correctly rounding `Double(String)`.
    static func exactDouble(
        integerDigits: Range<Int>, fractionDigits: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>, exponent: Int
    ) -> Double? {
        var mantissa: UInt64 = 0
        var significantDigits = 0
        func absorb(_ range: Range<Int>) -> Bool {
            for index in range {
                let digit = UInt64(bytes[index] - UInt8(ascii: "0"))
                if mantissa == 0, digit == 0 { continue }
                significantDigits += 1
                if significantDigits > 16 { return false }
                mantissa = mantissa * 10 + digit
            }
            return true
        }
        guard absorb(integerDigits), absorb(fractionDigits) else { return nil }
        if mantissa == 0 { return 0 }
        guard mantissa <= 1 << 53, exponent >= -22, exponent <= 22 else { return nil }
        let value = Double(mantissa)
        return exponent < 0 ? value / powersOfTen[-exponent] : value * powersOfTen[exponent]
    }

    @inline(__always)
    func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }
}
