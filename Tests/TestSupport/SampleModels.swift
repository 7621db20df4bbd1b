import Foundation
import WellPlateCore
import WellPlateNetworking

/// The sample API's payloads as an app would model them.
package struct User: Codable, Equatable, Sendable {
    package init(id: Int, name: String, email: String, role: String, createdAt: Date, avatarURL: URL? = nil) {
        self.id = id
        self.name = name
        self.email = email
        self.role = role
        self.createdAt = createdAt
        self.avatarURL = avatarURL
    }

    package let id: Int
    package var name: String
    package var email: String
    package var role: String
    package let createdAt: Date
    package var avatarURL: URL?
}

package struct NewUser: Codable, Sendable {
    package init(name: String, email: String, role: String? = nil) {
        self.name = name
        self.email = email
        self.role = role
    }

    package var name: String
    package var email: String
    package var role: String?
}

package struct NutritionRequest: Codable, Sendable {
    package init(food: String, grams: Double) {
        self.food = food
        self.grams = grams
    }

    package var food: String
    package var grams: Double
}

package struct NutritionalInfo: Codable, Equatable, Sendable {
    package init(food: String, grams: Double, calories: Int, protein: Double, carbs: Double, fat: Double, fiber: Double) {
        self.food = food
        self.grams = grams
        self.calories = calories
        self.protein = protein
        self.carbs = carbs
        self.fat = fat
        self.fiber = fiber
    }

    package let food: String
    package let grams: Double
    package let calories: Int
    package let protein: Double
    package let carbs: Double
    package let fat: Double
    package let fiber: Double
}

package struct HistoryEntry: Codable, Equatable, Sendable {
    package init(id: Int, food: String, grams: Double, calories: Int, loggedAt: Date) {
        self.id = id
        self.food = food
        self.grams = grams
        self.calories = calories
        self.loggedAt = loggedAt
    }

    package let id: Int
    package let food: String
    package let grams: Double
    package let calories: Int
    package let loggedAt: Date
}

package struct Health: Codable, Equatable, Sendable {
    package init(status: String, version: String, timestamp: Date) {
        self.status = status
        self.version = version
        self.timestamp = timestamp
    }

    package let status: String
    package let version: String
    package let timestamp: Date
}

package struct FlakyResult: Codable, Equatable, Sendable {
    package init(key: String, attempts: Int) {
        self.key = key
        self.attempts = attempts
    }

    package let key: String
    package let attempts: Int
}

package struct Echo: Codable, Sendable {
    package init(method: String, path: String, query: [[String]], headers: [[String]], body: String? = nil, bodyBase64: String? = nil) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.bodyBase64 = bodyBase64
    }

    package let method: String
    package let path: String
    package let query: [[String]]
    package let headers: [[String]]
    package let body: String?
    package let bodyBase64: String?

    package func header(_ name: String) -> String? {
        headers.first { $0.first?.lowercased() == name.lowercased() }?.last
    }
}
