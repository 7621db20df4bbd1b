import WellPlateCore

/// The decoded value of a response without a body (204 No Content, or an empty 2xx body).
public struct EmptyResponse: Codable, Sendable, Equatable {
    /// The empty value.
    public init() {}
}
