import Foundation
import WellPlateCore
import WellPlateNetworking

/// One suspicious value in a piece of text.
struct SecretMatch: Sendable, Equatable {
    var rule: String
    var description: String
    var severity: AuditSeverity
    var value: String
}

/// Finds secrets by their shape in free text: token formats, JWTs, PEM private keys,
/// credentials in URLs and `Authorization` values, personal data. One pass over the bytes;
/// each position is checked only against the shapes that start with its byte.
enum SecretScanner {
    static func scan(_ text: String) -> [SecretMatch] {
        var text = text
        return text.withUTF8 { scan(bytes: $0) }
    }

    static func scan(bytes: UnsafeBufferPointer<UInt8>) -> [SecretMatch] {
        var matches: [SecretMatch] = []
        var index = 0
        let count = bytes.count
        func value(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
        while index < count {
            let byte = bytes[index]
            let startsToken = index == 0 || !ByteClass.alphanumeric.contains(bytes[index - 1])
            if startsToken, case let shapes = SecretShape.byFirstByte[Int(byte)], !shapes.isEmpty {
                var matched = false
                for shape in shapes {
                    if let length = shape.match(bytes, at: index) {
                        matches.append(
                            SecretMatch(rule: shape.rule, description: shape.description, severity: shape.severity, value: value(index..<index + length)))
                        index += length
                        matched = true
                        break
                    }
                }
                if matched { continue }
            }
            if startsToken, byte == UInt8(ascii: "e"), let end = jwtEnd(bytes, at: index) {
                matches.append(SecretMatch(rule: "jwt", description: "JSON Web Token", severity: .high, value: value(index..<end)))
                index = end
                continue
            }
            if byte == UInt8(ascii: "-"), let end = privateKeyEnd(bytes, at: index) {
                matches.append(SecretMatch(rule: "private-key", description: "PEM private key", severity: .high, value: value(index..<end)))
                index = end
                continue
            }
            if byte == UInt8(ascii: ":"), let (range, password) = urlCredentials(bytes, colonSlashSlash: index) {
                matches.append(SecretMatch(rule: "url-credentials", description: "password in a URL", severity: .high, value: password))
                index = range.upperBound
                continue
            }
            if startsToken, byte == UInt8(ascii: "B") || byte == UInt8(ascii: "b"), let (end, credential) = authorizationValue(bytes, at: index) {
                matches.append(SecretMatch(rule: "authorization", description: "credentials of an Authorization header", severity: .high, value: credential))
                index = end
                continue
            }
            if byte == UInt8(ascii: "@"), let range = email(bytes, at: index) {
                matches.append(SecretMatch(rule: "email", description: "e-mail address (personal data)", severity: .low, value: value(range)))
                index = range.upperBound
                continue
            }
            if startsToken, byte == UInt8(ascii: "+"), let end = phone(bytes, at: index) {
                matches.append(SecretMatch(rule: "phone", description: "phone number (personal data)", severity: .low, value: value(index..<end)))
                index = end
                continue
            }
            if startsToken, ByteClass.digits.contains(byte), index == 0 || bytes[index - 1] != UInt8(ascii: "."), let end = publicIPv4(bytes, at: index) {
                matches.append(SecretMatch(rule: "public-ip", description: "public IP address (personal data)", severity: .low, value: value(index..<end)))
                index = end
                continue
            }
            index += 1
        }
        return matches
    }

    /// `eyJ<header>.<payload>.<signature>`; the header must decode to a JSON object.
    private static func jwtEnd(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        guard start + 20 < bytes.count, bytes[start + 1] == UInt8(ascii: "y"), bytes[start + 2] == UInt8(ascii: "J") else { return nil }
        var end = start
        var dots = 0
        var segmentLength = 0
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: ".") {
                guard segmentLength >= 4, dots < 2 else { break }
                dots += 1
                segmentLength = 0
            } else if ByteClass.base64URL.contains(byte) || byte == UInt8(ascii: "=") {
                segmentLength += 1
            } else {
                break
            }
            end += 1
        }
        guard dots >= 1, end - start >= 24 else { return nil }
        return end
    }

    private static let beginMarker = Array("-----BEGIN ".utf8)
    private static let privateKeyMarker = Array("PRIVATE KEY-----".utf8)
    private static let endMarker = Array("-----END ".utf8)

    private static func privateKeyEnd(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        guard has(beginMarker, in: bytes, at: start) else { return nil }
        let searchLimit = min(bytes.count, start + beginMarker.count + 40)
        var index = start + beginMarker.count
        while index < searchLimit, !has(privateKeyMarker, in: bytes, at: index) { index += 1 }
        guard index < searchLimit else { return nil }
        var end = index + privateKeyMarker.count
        while end < bytes.count, !has(endMarker, in: bytes, at: end) { end += 1 }
        if end < bytes.count {
            end += endMarker.count
            while end < bytes.count, bytes[end] != UInt8(ascii: "\n"), bytes[end] != UInt8(ascii: "\"") { end += 1 }
        }
        return end
    }

    /// `scheme://user:password@host`; a redacted password is no finding.
    private static func urlCredentials(_ bytes: UnsafeBufferPointer<UInt8>, colonSlashSlash start: Int) -> (Range<Int>, String)? {
        guard start + 3 < bytes.count, bytes[start + 1] == UInt8(ascii: "/"), bytes[start + 2] == UInt8(ascii: "/") else { return nil }
        var index = start + 3
        var colon: Int?
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "@") { break }
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") || byte <= 0x20 || byte == UInt8(ascii: "\"")
                || byte == UInt8(ascii: "{")
            {
                return nil
            }
            if byte == UInt8(ascii: ":"), colon == nil { colon = index }
            index += 1
        }
        guard index < bytes.count, let colon, colon > start + 3, index > colon + 1 else { return nil }
        let password = String(decoding: UnsafeBufferPointer(rebasing: bytes[(colon + 1)..<index]), as: UTF8.self)
        guard password != Redactor.placeholder else { return nil }
        return (start..<index, password)
    }

    /// `Bearer <token>` or `Basic <base64 of user:password>` that escaped redaction.
    private static func authorizationValue(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> (Int, String)? {
        let isBearer = hasCaseInsensitive("bearer ", in: bytes, at: start)
        guard isBearer || hasCaseInsensitive("basic ", in: bytes, at: start) else { return nil }
        let valueStart = start + (isBearer ? 7 : 6)
        var end = valueStart
        let allowed = ByteClass("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/=")
        while end < bytes.count, allowed.contains(bytes[end]) { end += 1 }
        let credential = String(decoding: UnsafeBufferPointer(rebasing: bytes[valueStart..<end]), as: UTF8.self)
        guard credential != Redactor.placeholder, credential.count >= (isBearer ? 16 : 8) else { return nil }
        if !isBearer {
            guard let decoded = Data(base64Encoded: credential).flatMap({ String(data: $0, encoding: .utf8) }), decoded.contains(":") else { return nil }
        } else if !Entropy.looksRandom(credential) {
            return nil
        }
        return (end, credential)
    }

    private static let emailLocal = ByteClass("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._%+-")
    private static let domain = ByteClass("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-")

    private static func email(_ bytes: UnsafeBufferPointer<UInt8>, at: Int) -> Range<Int>? {
        var start = at
        while start > 0, emailLocal.contains(bytes[start - 1]) { start -= 1 }
        var end = at + 1
        while end < bytes.count, domain.contains(bytes[end]) { end += 1 }
        while end > at + 1, bytes[end - 1] == UInt8(ascii: ".") { end -= 1 }
        guard start < at, end > at + 1 else { return nil }
        let host = UnsafeBufferPointer(rebasing: bytes[(at + 1)..<end])
        guard let lastDot = host.lastIndex(of: UInt8(ascii: ".")), host.count - (lastDot - host.startIndex) - 1 >= 2 else { return nil }
        let tld = host[(lastDot + 1)...]
        guard tld.allSatisfy({ ByteClass.alphanumeric.contains($0) && !ByteClass.digits.contains($0) }) else { return nil }
        return start..<end
    }

    /// `+` and 8 to 15 digits, which may be grouped by single spaces or dashes.
    private static func phone(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        var index = start + 1
        var digits = 0
        var end = index
        while index < bytes.count {
            let byte = bytes[index]
            if ByteClass.digits.contains(byte) {
                digits += 1
                index += 1
                end = index
            } else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "-"), index + 1 < bytes.count, ByteClass.digits.contains(bytes[index + 1]), digits > 0 {
                index += 1
            } else {
                break
            }
        }
        guard (8...15).contains(digits), end == bytes.count || !ByteClass.alphanumeric.contains(bytes[end]) else { return nil }
        return end
    }

    /// A dotted quad outside the private, loopback, link-local and documentation ranges.
    private static func publicIPv4(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        var octets: [Int] = []
        var index = start
        while octets.count < 4 {
            var value = 0
            var digits = 0
            while index < bytes.count, ByteClass.digits.contains(bytes[index]), digits < 4 {
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                digits += 1
                index += 1
            }
            guard (1...3).contains(digits), value <= 255 else { return nil }
            octets.append(value)
            if octets.count < 4 {
                guard index < bytes.count, bytes[index] == UInt8(ascii: ".") else { return nil }
                index += 1
            }
        }
        if index < bytes.count, ByteClass.alphanumeric.contains(bytes[index]) || bytes[index] == UInt8(ascii: ".") { return nil }
        switch (octets[0], octets[1]) {
        case (0, _), (10, _), (127, _), (169, 254), (192, 168), (255, _): return nil
        case (172, 16...31), (100, 64...127): return nil
        case (192, 0), (198, 51), (203, 0): return nil
        default: break
        }
        if octets[0] >= 224 { return nil }
        return index
    }

    private static func has(_ needle: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        guard start + needle.count <= bytes.count else { return false }
        for offset in 0..<needle.count where bytes[start + offset] != needle[offset] { return false }
        return true
    }

    private static func hasCaseInsensitive(_ needle: StaticString, in bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        let count = needle.utf8CodeUnitCount
        guard start + count <= bytes.count else { return false }
        let pointer = needle.utf8Start
        for offset in 0..<count where bytes[start + offset] | 0x20 != pointer[offset] | 0x20 { return false }
        return true
    }
}
