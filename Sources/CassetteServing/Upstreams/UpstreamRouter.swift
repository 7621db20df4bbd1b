import CassetteKernel
import Foundation
import WellPlateCore
import WellPlateNetworking

/// The one upstream transport of a session that forwards to several hosts, each verified its own
/// way (`"upstreams"` with a `"tls"` each): a request goes to the transport of its URL's origin,
/// else to the first. Each route is a `CurlTransport` with its own libcurl thread, started once.
package struct UpstreamRouter: StreamingHTTPTransport {
    /// By origin (`scheme://host[:port]`, as keys spell it).
    package let routes: [String: CurlTransport]
    package let fallback: CurlTransport

    package init(routes: [String: CurlTransport], fallback: CurlTransport) {
        self.routes = routes
        self.fallback = fallback
    }

    package func transport(for url: URL) -> CurlTransport {
        guard routes.count > 1, let origin = CassetteInfo.origin(of: url) else { return fallback }
        return routes[origin] ?? fallback
    }

    package func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await transport(for: request.url).send(request)
    }

    package func stream(_ request: TransportRequest) async throws -> StreamedResponse {
        try await transport(for: request.url).stream(request)
    }

    package func startStreaming(_ request: TransportRequest) throws -> PendingStream {
        try transport(for: request.url).startStreaming(request)
    }
}
