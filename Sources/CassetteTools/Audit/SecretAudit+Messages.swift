import Foundation
import WellPlateCore

extension SecretAudit {
    /// The values in a WebSocket message payload that have the shape of a credential `audit`
    /// reports as high severity (JWTs, provider tokens by their documented prefixes, private
    /// keys, passwords in URLs), for `cassette redact` to replace and learn. Personal data and
    /// medium findings (test keys, high-entropy strings) are left: their shape alone does not
    /// prove a secret, and rewriting them would change what a replay answers.
    package static func shapedSecrets(in payload: Data) -> [String] {
        guard !payload.isEmpty, let text = String(data: payload, encoding: .utf8) else { return [] }
        return SecretScanner.scan(text).filter { $0.severity == .high }.map(\.value)
    }
}
