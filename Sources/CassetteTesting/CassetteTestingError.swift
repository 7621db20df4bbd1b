import Foundation
import WellPlateCore

/// A cassette test that cannot run as written: a bad setting, a missing store, no trait.
/// The message says what to change.
public struct CassetteTestingError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// What is wrong and what to change.
    public let message: String

    /// An error with `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// The message, as printed.
    public var description: String { message }
    /// The message, for `LocalizedError`.
    public var errorDescription: String? { message }

    static let uploadTask = CassetteTestingError(
        "URLSession does not hand the body of an upload task to CassetteURLProtocol, so it cannot be recorded or matched: send it with a data task instead (set request.httpBody, or httpBodyStream, and call data(for:))"
    )

    static let noTrait = CassetteTestingError(
        "Cassette.current was used outside a cassette: add the .cassette trait to the @Test (or its @Suite), as in @Test(.cassette)")
}
