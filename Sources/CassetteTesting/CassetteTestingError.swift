import Foundation

/// A cassette test that cannot run as written: a bad setting, a missing store, no trait.
/// The message says what to change.
public struct CassetteTestingError: Error, Sendable, CustomStringConvertible, LocalizedError {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
    public var errorDescription: String? { message }

    static let noTrait = CassetteTestingError("Cassette.current was used outside a cassette: add the .cassette trait to the @Test (or its @Suite), as in @Test(.cassette)")
}
