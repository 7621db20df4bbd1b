import WellPlateCore
import WellPlateNetworking

/// An upstream that answers every request with the same response: for response headers and
/// bodies the sample API never sends (a `Set-Cookie`, a token in the body).
package struct FixedUpstream: HTTPTransport {
    package init(response: TransportResponse) {
        self.response = response
    }

    package let response: TransportResponse

    package func send(_ request: TransportRequest) async throws -> TransportResponse {
        response
    }
}
