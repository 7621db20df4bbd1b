import Foundation
import WellPlateCore
import WellPlateNetworking

/// What a caller can observe of one client call: the decoded value, or the error with its
/// category, status and message. Two clients agree on a call when their outcomes are equal.
package enum CallOutcome: Equatable, CustomStringConvertible {
    /// The value re-encoded as JSON with sorted keys (`void` for calls without one).
    case value(String)
    case apiError(category: APIError.Category, statusCode: Int?, message: String)
    /// Anything that is not an `APIError` (a `CassetteMiss`, for instance).
    case otherError(String)

    package static func of(_ call: () async throws -> String) async -> CallOutcome {
        do {
            return .value(try await call())
        } catch let error as APIError {
            return .apiError(category: error.category, statusCode: error.statusCode, message: error.localizedDescription)
        } catch {
            return .otherError("\(type(of: error)): \(error)")
        }
    }

    /// The outcome as a replay shows it: values the client sent in secret places (a bearer
    /// token, a secret query parameter) that the server echoed come back redacted.
    package func redacting(_ secrets: [String]) -> CallOutcome {
        let values = SecretValues(secrets)
        switch self {
        case .value(let text): return .value(Redactor.default.scrub(text, secrets: values))
        case .apiError(let category, let status, let message):
            return .apiError(category: category, statusCode: status, message: Redactor.default.scrub(message, secrets: values))
        case .otherError(let text): return .otherError(Redactor.default.scrub(text, secrets: values))
        }
    }

    /// `value` encoded the way `.value` holds it.
    package static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONCoding.makeEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    package var description: String {
        switch self {
        case .value(let json): "value \(json)"
        case .apiError(let category, let statusCode, let message): "APIError.\(category) \(statusCode.map(String.init) ?? "-"): \(message)"
        case .otherError(let text): text
        }
    }
}
