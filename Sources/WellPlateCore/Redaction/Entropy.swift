import Foundation

/// Shannon entropy of a value's characters, the measure detect-secrets and most scanners use:
/// random tokens score high, words and ids with repeated characters low.
package enum Entropy {
    package static func bitsPerCharacter(_ text: some StringProtocol) -> Double {
        var counts = [Int](repeating: 0, count: 256)
        var total = 0
        for byte in text.utf8 {
            counts[Int(byte)] += 1
            total += 1
        }
        guard total > 0 else { return 0 }
        var entropy = 0.0
        for count in counts where count > 0 {
            let probability = Double(count) / Double(total)
            entropy -= probability * log2(probability)
        }
        return entropy
    }

    /// A token that looks machine-made: at least 16 characters, letters and digits mixed, and
    /// about as varied as a random hex string.
    package static func looksRandom(_ text: some StringProtocol) -> Bool {
        guard text.utf8.count >= 16, !text.contains(" ") else { return false }
        var hasLetter = false
        var hasDigit = false
        for byte in text.utf8 {
            if ByteClass.digits.contains(byte) { hasDigit = true } else if ByteClass.alphanumeric.contains(byte) { hasLetter = true }
        }
        return hasLetter && hasDigit && bitsPerCharacter(text) >= 3.0
    }

    /// detect-secrets' Base64HighEntropyString rule (more than 4.5 bits per character), for
    /// strings of at least 20 base64 characters; Subresource Integrity hashes (`sha384-...`)
    /// name public content and are left out, as is base64 of a binary format (an embedded image).
    package static func isHighEntropyBase64(_ text: some StringProtocol) -> Bool {
        guard text.utf8.count >= 20, text.utf8.allSatisfy(ByteClass.base64.contains) || text.utf8.allSatisfy(ByteClass.base64URL.contains) else { return false }
        return bitsPerCharacter(text) > 4.5 && !ValueShapes.isEncodedBinary(String(text))
    }
}
