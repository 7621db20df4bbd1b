import Crypto
import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

/// Builds request keys for tests from plain strings.
package enum RequestKeyFixtures {
    package static func key(
        _ method: HTTPMethod, _ url: String, body: String? = nil, contentType: String? = nil,
        rules: MatchingRules = .default
    ) -> RequestKey {
        var headers = HTTPFields()
        if let contentType { headers[.contentType] = contentType }
        return RequestKey(
            method: method, url: URL(string: url)!, headerFields: headers, body: body.map { Data($0.utf8) }, rules: rules
        )
    }

    package static func jsonKey(_ method: HTTPMethod, _ url: String, _ json: String) -> RequestKey {
        key(method, url, body: json, contentType: "application/json")
    }

    /// What `BodyFingerprint.make` returns, as (hex, canonical text).
    package static func fingerprint(
        _ body: String, contentType: String?, rules: MatchingRules = .default
    ) -> (hex: String, canonical: CanonicalBody?)? {
        fingerprint(Data(body.utf8), contentType: contentType, rules: rules)
    }

    package static func fingerprint(
        _ body: Data, contentType: String?, rules: MatchingRules = .default
    ) -> (hex: String, canonical: CanonicalBody?)? {
        BodyFingerprint.make(body: body, contentType: contentType, rules: rules).map { ($0.fingerprint.hex, $0.canonicalBody) }
    }

    /// The first 16 hex digits of SHA-256, from the test's own call of the hasher.
    package static func sha256Prefix(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).hexPrefix(16)
    }
}
