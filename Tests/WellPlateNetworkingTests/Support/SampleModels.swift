import Foundation

/// The sample API's payloads as an app would model them.
struct User: Codable, Equatable, Sendable {
    let id: Int
    var name: String
    var email: String
    var role: String
    let createdAt: Date
    var avatarURL: URL?
}

struct NewUser: Codable, Sendable {
    var name: String
    var email: String
    var role: String?
}

struct NutritionRequest: Codable, Sendable {
    var food: String
    var grams: Double
}

struct NutritionalInfo: Codable, Equatable, Sendable {
    let food: String
    let grams: Double
    let calories: Int
    let protein: Double
    let carbs: Double
    let fat: Double
    let fiber: Double
}

struct HistoryEntry: Codable, Equatable, Sendable {
    let id: Int
    let food: String
    let grams: Double
    let calories: Int
    let loggedAt: Date
}

struct Health: Codable, Equatable, Sendable {
    let status: String
    let version: String
    let timestamp: Date
}

struct FlakyResult: Codable, Equatable, Sendable {
    let key: String
    let attempts: Int
}

struct Echo: Codable, Sendable {
    let method: String
    let path: String
    let query: [[String]]
    let headers: [[String]]
    let body: String?
    let bodyBase64: String?

    func header(_ name: String) -> String? {
        headers.first { $0.first?.lowercased() == name.lowercased() }?.last
    }
}
