import Foundation

/// Values that sit in secret-looking places, or look random, without being secrets: the false
/// alarms scanners raise on ordinary API data.
package enum ValueShapes {
    /// Words, numbers and versions joined by separators (`build:1.4.2:linux-x86_64`,
    /// `v2-assets-2024-06-15`): made by people, not by a random generator. Every part must be a
    /// word (one case, or capitalised, up to 12 letters), a number of up to 8 digits, or a short
    /// mark of up to 6 letters and digits (`x86`, `v2`, `arm64`); a part that mixes letters and
    /// digits at greater length (a token, a UUID's group, a hex digest) makes it not structured.
    package static func isPlainlyStructured(_ value: String) -> Bool {
        let parts = value.split(whereSeparator: { separators.contains($0) })
        guard parts.count >= 2, value.utf8.count <= 80 else { return false }
        return parts.allSatisfy(isHumanPart)
    }

    private static let separators: Set<Character> = [":", ".", "-", "_", "/", " ", ",", ";", "|", "+", "@", "="]

    private static func isHumanPart(_ part: Substring) -> Bool {
        if part.allSatisfy(\.isNumber) { return part.count <= 8 }
        if part.allSatisfy(\.isLetter) {
            guard part.count <= 12 else { return false }
            let rest = part.dropFirst()
            return part.allSatisfy(\.isLowercase) || part.allSatisfy(\.isUppercase) || rest.allSatisfy(\.isLowercase)
        }
        return part.count <= 6 && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }

    /// Base64 (standard or URL-safe, or a `data:` URL) whose decoded bytes start with the magic
    /// number of a binary format: an image, a document or an archive embedded in JSON, never a
    /// credential.
    package static func isEncodedBinary(_ value: String) -> Bool {
        var text = Substring(value)
        if text.hasPrefix("data:"), let comma = text.firstIndex(of: ","), text[..<comma].hasSuffix(";base64") {
            text = text[text.index(after: comma)...]
        }
        guard text.utf8.count >= 16 else { return false }
        let head = String(text.prefix(24)).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard let bytes = Data(base64Encoded: head).map([UInt8].init) else { return false }
        return magicNumbers.contains { magic in
            bytes.count >= magic.offset + magic.bytes.count && Array(bytes[magic.offset..<magic.offset + magic.bytes.count]) == magic.bytes
        }
    }

    private static let magicNumbers: [(offset: Int, bytes: [UInt8])] = [
        (0, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),  // PNG
        (0, [0xFF, 0xD8, 0xFF]),  // JPEG
        (0, Array("GIF87a".utf8)), (0, Array("GIF89a".utf8)),
        (0, Array("%PDF-".utf8)),
        (0, Array("RIFF".utf8)),  // WebP, WAV, AVI
        (4, Array("ftyp".utf8)),  // MP4, MOV, HEIC, AVIF
        (0, [0x50, 0x4B, 0x03, 0x04]),  // ZIP, and so DOCX, XLSX, JAR, APK
        (0, [0x1F, 0x8B, 0x08]),  // gzip
        (0, Array("wOFF".utf8)), (0, Array("wOF2".utf8)),  // web fonts
        (0, [0x00, 0x00, 0x01, 0x00]),  // ICO
        (0, Array("II*\0".utf8)), (0, Array("MM\0*".utf8)),  // TIFF
        (0, Array("OggS".utf8)), (0, Array("ID3".utf8)), (0, Array("fLaC".utf8)),
        (0, [0x00, 0x61, 0x73, 0x6D]),  // WebAssembly
        (0, [0x25, 0x21, 0x50, 0x53]),  // PostScript
    ]
}
