import Foundation

/// The upstream answered but the answer could not be stored (disk full, file locked or made
/// read-only meanwhile). Carries the live response, so a proxy can still pass it on.
public struct RecordingFailure: Error, Sendable, CustomStringConvertible {
    public let response: TransportResponse
    public let key: String
    public let underlying: CassetteStoreError

    public var description: String {
        "the response to \(key) was not recorded: \(underlying.message)"
    }
}

extension RecordingFailure: LocalizedError {
    public var errorDescription: String? { description }
}
