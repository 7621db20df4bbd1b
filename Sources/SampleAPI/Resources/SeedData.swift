/// The fixed data every process starts from, so that responses are the same on every run.
enum SeedData {
    static let users: [User] = [
        User(
            id: 1,
            name: "Ada Lovelace",
            email: "ada@example.com",
            role: "admin",
            createdAt: "2026-01-02T09:00:00Z",
            avatarURL: "https://cdn.example.com/avatars/1.png"
        ),
        User(
            id: 2,
            name: "Grace Hopper",
            email: "grace@example.com",
            role: "member",
            createdAt: "2026-01-03T10:30:00Z",
            avatarURL: nil
        ),
        User(
            id: 3,
            name: "Alan Turing",
            email: "alan@example.com",
            role: "member",
            createdAt: "2026-01-04T14:15:00Z",
            avatarURL: "https://cdn.example.com/avatars/3.png"
        ),
    ]

    /// Every user created through the API gets this timestamp: a clock would break determinism.
    static let createdAtForNewUsers = "2026-02-01T00:00:00Z"

    static let healthTimestamp = "2026-01-01T00:00:00Z"
    static let version = "1.0.0"

    /// Nutrients per 100 g (rounded USDA reference values).
    static let nutrition: [String: Nutrients] = [
        "apple": Nutrients(calories: 52, protein: 0.3, carbs: 13.8, fat: 0.2, fiber: 2.4),
        "banana": Nutrients(calories: 89, protein: 1.1, carbs: 22.8, fat: 0.3, fiber: 2.6),
        "broccoli": Nutrients(calories: 34, protein: 2.8, carbs: 6.6, fat: 0.4, fiber: 2.6),
        "chicken breast": Nutrients(calories: 165, protein: 31.0, carbs: 0, fat: 3.6, fiber: 0),
        "egg": Nutrients(calories: 155, protein: 13.0, carbs: 1.1, fat: 11.0, fiber: 0),
        "oats": Nutrients(calories: 389, protein: 16.9, carbs: 66.3, fat: 6.9, fiber: 10.6),
        "rice": Nutrients(calories: 130, protein: 2.7, carbs: 28.0, fat: 0.3, fiber: 0.4),
        "salmon": Nutrients(calories: 208, protein: 20.0, carbs: 0, fat: 13.0, fiber: 0),
    ]

    /// Calories agree with `nutrition` for the logged amounts.
    static let history: [HistoryEntry] = [
        HistoryEntry(id: 1, food: "oats", grams: 80, calories: 311, loggedAt: "2026-01-05T07:45:00Z"),
        HistoryEntry(id: 2, food: "banana", grams: 120, calories: 107, loggedAt: "2026-01-05T08:30:00Z"),
        HistoryEntry(id: 3, food: "chicken breast", grams: 150, calories: 248, loggedAt: "2026-01-05T12:30:00Z"),
        HistoryEntry(id: 4, food: "broccoli", grams: 200, calories: 68, loggedAt: "2026-01-05T12:35:00Z"),
        HistoryEntry(id: 5, food: "salmon", grams: 180, calories: 374, loggedAt: "2026-01-05T19:00:00Z"),
    ]
}

struct Nutrients: Sendable {
    var calories: Double
    var protein: Double
    var carbs: Double
    var fat: Double
    var fiber: Double
}

struct HistoryEntry: Sendable {
    var id: Int
    var food: String
    var grams: Int
    var calories: Int
    var loggedAt: String

    var json: JSONValue {
        ["id": .integer(id), "food": .string(food), "grams": .integer(grams), "calories": .integer(calories), "loggedAt": .string(loggedAt)]
    }
}
