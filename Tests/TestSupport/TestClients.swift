import Foundation
import WellPlateCore
import WellPlateNetworking

package enum TestClients {
    /// A live client with retries fast enough for tests (5 ms, 10 ms, 20 ms).
    package static func live(
        retryPolicy: RetryPolicy = RetryPolicy(maxRetries: 3, baseDelay: .milliseconds(5)),
        timeout: Duration = Patience.request,
        configure: (inout APIClient.Configuration) -> Void = { _ in }
    ) throws -> APIClient {
        var configuration = APIClient.Configuration()
        configuration.retryPolicy = retryPolicy
        configuration.timeout = timeout
        configure(&configuration)
        return APIClient(transport: try TransportChoice.default.transport(), configuration: configuration)
    }
}

extension URL {
    /// `base` plus a path and query such as `/api/users?limit=1`.
    package func appending(pathAndQuery: String) -> URL {
        URL(string: absoluteString.trimmingSuffix("/") + pathAndQuery)!
    }
}

extension String {
    package func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
