import CassetteTesting
import Foundation
import TestSupport
import WellPlateCore
import WellPlateNetworking

// Example app code in the shape of the design documents' repository layer: view models depend on
// `NutritionRepositoryProtocol`, and the repository depends on `APIClientProtocol` only, so the
// live, replay and mock clients (or whatever `APIClientFactory` builds) plug in unchanged.
// Its models are the sample API's payloads in Support/SampleModels.swift.

/// What the app's screens ask of the WellPlate backend.
protocol NutritionRepositoryProtocol: Sendable {
    /// Nutrients of `grams` of `food` (the design's `analyzeFood(image:)`, minus the camera).
    func analyzeFood(food: String, grams: Double) async throws -> NutritionalInfo
    func getFoodHistory() async throws -> [HistoryEntry]
    func listUsers() async throws -> [User]
    func user(id: Int) async throws -> User
    func createUser(_ user: NewUser) async throws -> User
    func deleteUser(id: Int) async throws
}

/// The repository over the network, whichever client carries the requests.
struct NutritionRepository: NutritionRepositoryProtocol {
    private let apiClient: any APIClientProtocol
    private let baseURL: URL

    init(apiClient: any APIClientProtocol, baseURL: URL) {
        self.apiClient = apiClient
        self.baseURL = baseURL
    }

    /// The design documents' wiring: the base URL comes from the configuration.
    init(apiClient: any APIClientProtocol, config: AppConfig) {
        self.init(apiClient: apiClient, baseURL: config.baseURL)
    }

    func analyzeFood(food: String, grams: Double) async throws -> NutritionalInfo {
        let body = try apiClient.encodeBody(NutritionRequest(food: food, grams: grams))
        return try await apiClient.post(url: try url("/api/nutrition/analyze"), body: body, responseType: NutritionalInfo.self)
    }

    func getFoodHistory() async throws -> [HistoryEntry] {
        try await apiClient.get(url: try url("/api/nutrition/history"), responseType: [HistoryEntry].self)
    }

    func listUsers() async throws -> [User] {
        try await apiClient.get(url: try url("/api/users"), responseType: [User].self)
    }

    func user(id: Int) async throws -> User {
        try await apiClient.get(url: try url("/api/users/\(id)"), responseType: User.self)
    }

    func createUser(_ user: NewUser) async throws -> User {
        try await apiClient.post(url: try url("/api/users"), body: try apiClient.encodeBody(user), responseType: User.self)
    }

    func deleteUser(id: Int) async throws {
        try await apiClient.deleteVoid(url: try url("/api/users/\(id)"))
    }

    /// The base URL may or may not end in `/`; paths here always start with one.
    private func url(_ path: String) throws -> URL {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base + path) else { throw APIError.invalidURL }
        return url
    }
}
