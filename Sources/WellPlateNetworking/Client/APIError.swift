import Foundation
import WellPlateCore

/// Everything a client call can fail with. The cases are the design documents' own; `category`
/// classifies them so callers can react to "unauthorized" or "timeout" without string matching.
public enum APIError: Error {
    case invalidURL
    case invalidResponse
    case noData
    case decodingError(Error)
    case serverError(statusCode: Int, message: String?)
    case networkError(Error)

    /// A coarse classification of the failure, stable across the cases' payloads.
    public enum Category: String, Sendable, Hashable, CaseIterable {
        case invalidURL
        case invalidResponse
        case noData
        case decoding
        case badRequest
        case unauthorized
        case forbidden
        case notFound
        case rateLimited
        /// Any other 4xx.
        case clientError
        /// 5xx.
        case serverError
        case timeout
        /// Connection refused or unreachable.
        case cannotConnect
        case dnsFailure
        case tls
        case connectionLost
        /// A transport failure of another kind.
        case network

        /// The category of an HTTP status that is not a success.
        public init(statusCode: Int) {
            switch statusCode {
            case 400: self = .badRequest
            case 401: self = .unauthorized
            case 403: self = .forbidden
            case 404: self = .notFound
            case 429: self = .rateLimited
            case 500...599: self = .serverError
            case 400...499: self = .clientError
            default: self = .invalidResponse
            }
        }
    }

    /// The failure's category: by status for `serverError`, by `TransportError.Kind` for a transport failure.
    public var category: Category {
        switch self {
        case .invalidURL: return .invalidURL
        case .invalidResponse: return .invalidResponse
        case .noData: return .noData
        case .decodingError: return .decoding
        case .serverError(let statusCode, _): return Category(statusCode: statusCode)
        case .networkError(let error):
            guard let transport = error as? TransportError else { return .network }
            switch transport.kind.code {
            case .timeout: return .timeout
            case .cannotConnect: return .cannotConnect
            case .dnsFailure: return .dnsFailure
            case .tls: return .tls
            case .connectionLost: return .connectionLost
            case .invalidURL: return .invalidURL
            case .invalidRequest, .responseTooLarge, .tooManyRedirects, .shutdown, .other: return .network
            }
        }
    }

    /// The HTTP status for `serverError`, otherwise `nil`.
    public var statusCode: Int? {
        if case .serverError(let statusCode, _) = self { return statusCode }
        return nil
    }
}

extension APIError: LocalizedError {
    /// What failed and what to check, for people.
    public var errorDescription: String? {
        switch self {
        case .invalidURL:
            return "The request URL is invalid; check the base URL in the configuration and the path passed to the client."
        case .invalidResponse:
            return "The server's reply was not a usable HTTP response; check that the base URL points at the API and not at a proxy or web page."
        case .noData:
            return "The server answered without a body where one was expected; request EmptyResponse (or use a Void variant) for endpoints that return none."
        case .decodingError(let error):
            return "The response could not be decoded: \(Self.describe(error))"
        case .serverError(let statusCode, let message):
            let detail = message.map { ": \($0)" } ?? ""
            return "HTTP \(statusCode) \(Self.advice(for: Category(statusCode: statusCode)))\(detail)"
        case .networkError(let error):
            return "\(Self.describe(error)). \(Self.advice(for: category))"
        }
    }

    private static func describe(_ error: Error) -> String {
        (error as? LocalizedError)?.errorDescription ?? String(describing: error)
    }

    private static func advice(for category: Category) -> String {
        switch category {
        case .badRequest: "bad request (the server rejected the request as malformed; check the body and parameters)"
        case .unauthorized: "unauthorized (send valid credentials in the Authorization header or sign in again)"
        case .forbidden: "forbidden (the credentials are valid but lack permission for this resource)"
        case .notFound: "not found (check the path and the id in it)"
        case .rateLimited: "rate limited (slow down; the client retries idempotent requests after Retry-After)"
        case .clientError: "client error (the server refused the request)"
        case .serverError: "server error (the API failed; retry later or check the server logs)"
        case .timeout: "The request timed out; raise the timeout (apiTimeout) or check that the server is responsive."
        case .cannotConnect: "Nothing is listening at that address; check that the server is running and the base URL's host and port."
        case .dnsFailure: "The host name did not resolve; check the base URL's host and the network's DNS."
        case .tls: "The TLS handshake failed; check the server certificate and the URL's scheme."
        case .connectionLost: "The connection closed before the response was complete; retry, or check the server for crashes."
        default: "Check the network and the base URL."
        }
    }
}

/// A response body that did not match the expected type: names the type, the coding path and why.
public struct ResponseDecodingError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// The type that was being decoded, fully qualified.
    public let typeName: String
    /// The JSON path of the failing value, such as `$.items[2].price`.
    public let path: String
    /// Why the value did not fit, in words.
    public let reason: String
    /// The decoder's own error, when there was one.
    public let underlying: DecodingError?

    /// An error about decoding `typeName` at `path`.
    public init(typeName: String, path: String, reason: String, underlying: DecodingError? = nil) {
        self.typeName = typeName
        self.path = path
        self.reason = reason
        self.underlying = underlying
    }

    init(type: Any.Type, error: DecodingError) {
        let context: DecodingError.Context?
        var reason: String
        switch error {
        case .typeMismatch(let expected, let ctx):
            context = ctx
            reason = "expected \(expected) but found something else"
        case .valueNotFound(let expected, let ctx):
            context = ctx
            reason = "expected \(expected) but found null"
        case .keyNotFound(let key, let ctx):
            context = ctx
            reason = "required key \"\(key.stringValue)\" is missing"
            var path = ctx.codingPath
            path.append(key)
            self.init(typeName: String(reflecting: type), path: Self.jsonPath(path), reason: reason, underlying: error)
            return
        case .dataCorrupted(let ctx):
            context = ctx
            reason = "the data is not valid here"
        @unknown default:
            context = nil
            reason = "unknown decoding failure"
        }
        if let debug = context?.debugDescription, !debug.isEmpty {
            reason += " (\(debug))"
        }
        self.init(typeName: String(reflecting: type), path: Self.jsonPath(context?.codingPath ?? []), reason: reason, underlying: error)
    }

    static func jsonPath(_ codingPath: [CodingKey]) -> String {
        var path = "$"
        for key in codingPath {
            if let index = key.intValue {
                path += "[\(index)]"
            } else {
                path += ".\(key.stringValue)"
            }
        }
        return path
    }

    /// `Type at $.path: reason`.
    public var description: String { "\(typeName) at \(path): \(reason)" }
    /// The same text as `description`.
    public var errorDescription: String? { description }
}
