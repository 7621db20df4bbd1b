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
    public func requestVoid(url: URL, method: HTTPMethod, headers: [String: String]? = nil, body: Data? = nil) async throws {
        _ = try await request(url: url, method: method, headers: headers, body: body, responseType: EmptyResponse.self)
    }

    public func get<T: Decodable>(url: URL, headers: [String: String]? = nil, responseType: T.Type) async throws -> T {
        try await request(url: url, method: .get, headers: headers, body: nil, responseType: responseType)
    }

    public func post<T: Decodable>(url: URL, headers: [String: String]? = nil, body: Data? = nil, responseType: T.Type) async throws -> T {
        try await request(url: url, method: .post, headers: headers, body: body, responseType: responseType)
    }

    public func put<T: Decodable>(url: URL, headers: [String: String]? = nil, body: Data? = nil, responseType: T.Type) async throws -> T {
        try await request(url: url, method: .put, headers: headers, body: body, responseType: responseType)
    }

    public func delete<T: Decodable>(url: URL, headers: [String: String]? = nil, responseType: T.Type) async throws -> T {
        try await request(url: url, method: .delete, headers: headers, body: nil, responseType: responseType)
    }

    public func patch<T: Decodable>(url: URL, headers: [String: String]? = nil, body: Data? = nil, responseType: T.Type) async throws -> T {
        try await request(url: url, method: .patch, headers: headers, body: body, responseType: responseType)
    }

    public func deleteVoid(url: URL, headers: [String: String]? = nil) async throws {
        try await requestVoid(url: url, method: .delete, headers: headers, body: nil)
    }

    public func putVoid(url: URL, headers: [String: String]? = nil, body: Data? = nil) async throws {
        try await requestVoid(url: url, method: .put, headers: headers, body: body)
    }

    public func encodeBody<T: Encodable>(_ body: T) throws -> Data {
        try JSONCoding.encode(body)
    }
}
