import Foundation
import WellPlateCore

/// The networking contract from the design documents. Consumers depend on this protocol only, so
/// the live client, the replay client and the mock client are interchangeable.
public protocol APIClientProtocol: Sendable {
    func request<T: Decodable>(
        url: URL,
        method: HTTPMethod,
        headers: [String: String]?,
        body: Data?,
        responseType: T.Type
    ) async throws -> T

    func requestVoid(
        url: URL,
        method: HTTPMethod,
        headers: [String: String]?,
        body: Data?
    ) async throws

    func get<T: Decodable>(url: URL, headers: [String: String]?, responseType: T.Type) async throws -> T
    func post<T: Decodable>(url: URL, headers: [String: String]?, body: Data?, responseType: T.Type) async throws -> T
    func put<T: Decodable>(url: URL, headers: [String: String]?, body: Data?, responseType: T.Type) async throws -> T
    func delete<T: Decodable>(url: URL, headers: [String: String]?, responseType: T.Type) async throws -> T
    func patch<T: Decodable>(url: URL, headers: [String: String]?, body: Data?, responseType: T.Type) async throws -> T

    func deleteVoid(url: URL, headers: [String: String]?) async throws
    func putVoid(url: URL, headers: [String: String]?, body: Data?) async throws

    func encodeBody<T: Encodable>(_ body: T) throws -> Data
}

// The conveniences route through `request`/`requestVoid`, so a conforming type implements two
// methods and every call, with or without the defaulted arguments, takes the same path.
extension APIClientProtocol {
    /// Sends a request and ignores any response body.
    public func requestVoid(url: URL, method: HTTPMethod, headers: [String: String]? = nil, body: Data? = nil) async throws {
        _ = try await request(url: url, method: method, headers: headers, body: body, responseType: EmptyResponse.self)
    }

    /// Sends a GET without a body and decodes the response as `T`.
    public func get<T: Decodable>(url: URL, headers: [String: String]? = nil, responseType: T.Type) async throws -> T {
        try await request(url: url, method: .get, headers: headers, body: nil, responseType: responseType)
    }

    /// Sends a POST and decodes the response as `T`.
    public func post<T: Decodable>(url: URL, headers: [String: String]? = nil, body: Data? = nil, responseType: T.Type) async throws -> T {
        try await request(url: url, method: .post, headers: headers, body: body, responseType: responseType)
    }

    /// Sends a PUT and decodes the response as `T`.
    public func put<T: Decodable>(url: URL, headers: [String: String]? = nil, body: Data? = nil, responseType: T.Type) async throws -> T {
        try await request(url: url, method: .put, headers: headers, body: body, responseType: responseType)
    }

    /// Sends a DELETE without a body and decodes the response as `T`.
    public func delete<T: Decodable>(url: URL, headers: [String: String]? = nil, responseType: T.Type) async throws -> T {
        try await request(url: url, method: .delete, headers: headers, body: nil, responseType: responseType)
    }

    /// Sends a PATCH and decodes the response as `T`.
    public func patch<T: Decodable>(url: URL, headers: [String: String]? = nil, body: Data? = nil, responseType: T.Type) async throws -> T {
        try await request(url: url, method: .patch, headers: headers, body: body, responseType: responseType)
    }

    /// Sends a DELETE without a body and ignores any response body.
    public func deleteVoid(url: URL, headers: [String: String]? = nil) async throws {
        try await requestVoid(url: url, method: .delete, headers: headers, body: nil)
    }

    /// Sends a PUT and ignores any response body.
    public func putVoid(url: URL, headers: [String: String]? = nil, body: Data? = nil) async throws {
        try await requestVoid(url: url, method: .put, headers: headers, body: body)
    }

    /// `body` as JSON, with the clients' date format (`JSONCoding`).
    public func encodeBody<T: Encodable>(_ body: T) throws -> Data {
        try JSONCoding.encode(body)
    }
}
