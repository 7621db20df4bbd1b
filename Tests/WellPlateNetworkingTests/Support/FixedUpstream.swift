import WellPlateNetworking

/// An upstream that answers every request with the same response: for response headers and
/// bodies the sample API never sends (a `Set-Cookie`, a token in the body).
struct FixedUpstream: HTTPTransport {
    let response: TransportResponse

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        response
    }
}
