/// The decoded value of a response without a body (204 No Content, or an empty 2xx body).
import WellPlateCore

public struct EmptyResponse: Codable, Sendable, Equatable {
    public init() {}
}
