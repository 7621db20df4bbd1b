#if canImport(CCurl)
import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

/// The HTTP client the proxy tests talk through: libcurl without content decoding, so requests
/// carry exactly the headers a test gives (`Accept-Encoding` included) and responses arrive with
/// their headers and body bytes as the proxy sent them.
package enum ProxyClient {
    package static let transport: CurlTransport = {
        var configuration = CurlTransport.Configuration()
        configuration.decodeContent = false
        configuration.timeout = Patience.request
        configuration.connectTimeout = Patience.request
        do {
            return try CurlTransport(configuration: configuration)
        } catch {
            fatalError("libcurl could not start: \(error)")
        }
    }()

    package static func send(
        _ method: HTTPMethod = .get,
        _ url: URL,
        headers: HTTPFields = [:],
        body: Data? = nil
    ) async throws -> TransportResponse {
        try await transport.send(TransportRequest(method: method, url: url, headerFields: headers, body: body))
    }
}

package struct UnexpectedBody: Error, CustomStringConvertible {
    package init(description: String) {
        self.description = description
    }

    package let description: String
}

extension TransportResponse {
    /// The body as UTF-8 text.
    package var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as a JSON object.
    package func jsonObject() throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: body)
        guard let object = value as? [String: Any] else {
            throw UnexpectedBody(description: "expected a JSON object, got \(bodyText)")
        }
        return object
    }

    /// `X-Cassette`: how the proxy answered (hit, miss, recorded, passthrough, error, endpoint).
    package var cassetteSource: String? { headerFields[HTTPField.Name("X-Cassette")!] }
}
#endif
