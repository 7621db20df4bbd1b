import Foundation

/// The upstream answered but the answer could not be stored (disk full, file locked or made
/// read-only meanwhile). Carries the live response, so a proxy can still pass it on.
package struct RecordingFailure: Error, Sendable, CustomStringConvertible {
    package let response: TransportResponse
    package let key: String
    package let underlying: CassetteStoreError

    package var description: String {
        "the response to \(key) was not recorded: \(underlying.message)"
    }
}

extension RecordingFailure: LocalizedError {
    package var errorDescription: String? { description }
}
