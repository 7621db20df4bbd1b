import Crypto
import Foundation

/// The part of a request key that stands for the request body: the first 16 hex digits (64 bits)
/// of the SHA-256 of the body's canonical form. See docs/matching.md for how bodies are canonicalized.
package struct BodyFingerprint: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Hex digits kept from the digest. 64 bits: for a million bodies recorded under the same method and
    /// path, the chance of any collision is about 3 in 100 million.
    package static let hexLength = 16
    /// Names the algorithm in the key text, so a future change of algorithm is visible in stored keys.
    package static let algorithm = "sha256"

    /// `hexLength` lower-case hex digits.
    package let hex: String

    /// Accepts exactly `hexLength` hex digits in either case; `nil` for anything else.
    package init?(hex: String) {
        guard hex.utf8.count == Self.hexLength, hex.utf8.allSatisfy({ PercentEncoding.hexValue($0) != nil }) else {
            return nil
        }
        self.hex = hex.lowercased()
    }

    private init(digest: SHA256Digest) {
        hex = digest.hexPrefix(Self.hexLength)
    }

    /// `sha256:<hex>`, as it appears in a key after `body:`.
    package var description: String { "\(Self.algorithm):\(hex)" }

    /// The fingerprint of the canonical text `text` (of a `CanonicalBody`).
    package init(canonicalText text: String) {
        self.init(digest: SHA256.hash(data: Array(text.utf8)))
    }

    /// Fingerprints a body. `nil` for no body and for an empty one, which are the same.
    /// JSON bodies (by Content-Type `application/json` or `…+json`, or, without a Content-Type, by
    /// parsing) and `application/x-www-form-urlencoded` bodies are canonicalized first, leaving out
    /// `rules.ignoredBodyFields`; anything else, and JSON that does not parse, is hashed byte for byte.
    package static func make(
        body: Data?, contentType: String?, rules: MatchingRules = .default
    ) -> (fingerprint: BodyFingerprint, canonicalBody: CanonicalBody?)? {
        guard let body, !body.isEmpty else { return nil }
        let declared = MediaType(contentType)
        if declared == .json || (declared == .absent && mayStartJSON(body)),
            let text = CanonicalJSON.canonicalText(of: body, ignoring: rules.ignoredBodyFields)
        {
            return canonical(text, kind: .json)
        }
        if declared == .multipart, let contentType,
            let text = MultipartCanonicalForm.canonicalText(of: body, contentType: contentType, ignoring: rules.ignoredBodyFields)
        {
            return canonical(text, kind: .multipart)
        }
        return body.withUnsafeBytes { raw -> (BodyFingerprint, CanonicalBody?) in
            if declared == .form {
                let text = URLNormalizer.normalizedFormEncoded(raw.bindMemory(to: UInt8.self), ignoring: rules.ignoredBodyFields).text
                return canonical(text, kind: .form)
            }
            return (BodyFingerprint(digest: SHA256.hash(data: raw)), nil)
        }
    }

    private static func canonical(_ text: [UInt8], kind: CanonicalBody.Kind) -> (BodyFingerprint, CanonicalBody?) {
        let fingerprint = BodyFingerprint(digest: SHA256.hash(data: text))
        guard text.count <= CanonicalBody.retainedLengthLimit else { return (fingerprint, nil) }
        return (fingerprint, CanonicalBody(kind: kind, text: String(decoding: text, as: UTF8.self)))
    }

    /// Cheap pre-check before a parse attempt on a body without Content-Type.
    private static func mayStartJSON(_ bytes: Data) -> Bool {
        guard let first = bytes.first(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }) else {
            return false
        }
        switch first {
        case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""), UInt8(ascii: "-"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"), 0xEF:
            return true
        default:
            return false
        }
    }

    private enum MediaType {
        case absent, json, form, multipart, other

        init(_ contentType: String?) {
            guard let contentType else {
                self = .absent
                return
            }
            let essence = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let name = essence.trimmingCharacters(in: .whitespaces).lowercased()
            if name.isEmpty {
                self = .absent
            } else if name == "application/json" || name.hasSuffix("+json") {
                self = .json
            } else if name == "application/x-www-form-urlencoded" {
                self = .form
            } else if name == "multipart/form-data" {
                self = .multipart
            } else {
                self = .other
            }
        }
    }
}

/// A JSON or form body in the canonical form that was hashed, kept with a key for explaining misses.
package struct CanonicalBody: Sendable, Hashable, Codable {
    package enum Kind: String, Sendable, Hashable, Codable {
        case json, form, multipart
        /// A GraphQL request's operations (`GraphQLRequest`): document hash and variables.
        case graphql
    }

    /// Longer canonical bodies are hashed but not kept: explanations are for people, not bulk storage.
    package static let retainedLengthLimit = 4096

    package let kind: Kind
    /// Canonical JSON text, the sorted `name=value&…` form text, or one line per multipart part.
    package let text: String

    package init(kind: Kind, text: String) {
        self.kind = kind
        self.text = text
    }
}
