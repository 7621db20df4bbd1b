import Foundation
import TestSupport
import Testing

@testable import CassetteTools
@testable import WellPlateCore
@testable import WellPlateNetworking

@Suite("Swift model generation")
struct SwiftModelGeneratorTests {
    let models = SwiftModelGenerator(cassette: "dev").generate(
        RecordedOperations(
            interactions: CodegenSamples.interactions.enumerated().map { index, interaction in
                var interaction = interaction
                interaction.id = Int64(index + 1)
                return interaction
            }))

    func file(_ type: String) -> String {
        models.files.first { $0.typeName == type }?.contents ?? ""
    }

    @Test("types, optionality and CodingKeys follow the recordings")
    func mealDeclaration() {
        let meal = file("Meal")
        for line in [
            "public struct Meal: Codable, Sendable, Equatable {",
            "    public let _2fa: Bool",
            "    public let caf: String",
            "    public let caloriesTotal: Double",
            "    public let `class`: Int",
            "    public let createdAt: Date",
            "    public let `default`: String",
            "    public let empty: [JSONValue]",
            "    public let extra: Extra?",
            "    public let id: Int",
            "    public let items: [Item]",
            "    public let mealName: String",
            "    public let mixed: [JSONValue]",
            "    public let notes: String?",
            "    public let score: Double",
            "    public let selfValue: String",
            "    public let tags: [String]",
            "    public let union: JSONValue?",
            "    public let userId: Int?",
            "    public let userId2: Int?",
            "        case _2fa = \"2fa\"",
            "        case caf = \"café\"",
            "        case caloriesTotal = \"calories-total\"",
            "        case `class`",
            "        case createdAt",
            "        case mealName = \"meal_name\"",
            "        case selfValue = \"self\"",
            "        case userId2 = \"user_id\"",
        ] {
            #expect(meal.contains(line + "\n"), "missing: \(line)")
        }
        #expect(meal.contains("//   GET /api/meals/{id} response: 3 recordings (#1, #2, #3)"))
        #expect(file("Item").contains("    public let grams: Double\n"))
        #expect(file("Item").contains("    public let nutrients: [Nutrient]\n"))
    }

    @Test("an integer beyond 64 bits is a Decimal, which decodes it exactly")
    func wideIntegers() throws {
        let body = #"{"counter": 18446744073709551616, "small": 5, "mixed": 7}"#
        let other = #"{"counter": 1, "small": 6, "mixed": -9223372036854775809}"#
        let interactions = [body, other].enumerated().map { index, text in
            var interaction = Recordings.make(.get, "/api/counters", body: Data(text.utf8))
            interaction.id = Int64(index + 1)
            return interaction
        }
        let generated = SwiftModelGenerator(cassette: "dev").generate(RecordedOperations(interactions: interactions))
        let contents = generated.files.map(\.contents).joined()
        #expect(contents.contains("    public let counter: Decimal\n"), "\(contents)")
        #expect(contents.contains("    public let mixed: Decimal\n"), "\(contents)")
        #expect(contents.contains("    public let small: Int\n"), "\(contents)")

        struct Probe: Decodable {
            let counter: Decimal
            let mixed: Decimal
        }
        let first = try JSONDecoder().decode(Probe.self, from: Data(body.utf8))
        #expect(first.counter == Decimal(string: "18446744073709551616"))
        let second = try JSONDecoder().decode(Probe.self, from: Data(other.utf8))
        #expect(second.mixed == Decimal(string: "-9223372036854775809"))
    }

    @Test("a shape used by several endpoints is generated once and names its sources")
    func sharedShape() {
        let user = file("User")
        #expect(user.contains("//   GET /api/profile response: 1 recording (#8)"))
        #expect(user.contains("//   GET /api/users/{id} response: 1 recording (#7)"))
        #expect(file("Profile").contains("    public let friends: [User]\n"))
        #expect(file("Profile").contains("    public let owner: User\n"))
        #expect(file("Profile").contains("    public let since: String\n"), "a full-date is not a date-time")
        #expect(!file("User").contains("CodingKeys"), "keys that are already Swift names need none")
    }

    @Test("same recordings in any order give the same bytes")
    func deterministic() {
        let shuffled = SwiftModelGenerator(cassette: "dev").generate(
            RecordedOperations(
                interactions: CodegenSamples.interactions.enumerated().map { index, interaction in
                    var interaction = interaction
                    interaction.id = Int64(index + 1)
                    return interaction
                }.reversed()))
        #expect(shuffled.files == models.files)
        #expect(shuffled.roots == models.roots)
    }

    @Test(
        "names follow the design rules",
        arguments: [
            ("GET /api/users/{id}", "User", "User", "GetUserRequest"),
            ("GET /api/users", "Users", "User", "GetUserRequest"),
            ("POST /api/users", "CreateUserResponse", "User", "CreateUserRequest"),
            ("PUT /api/users/{id}", "UpdateUserResponse", "User", "UpdateUserRequest"),
            ("POST /api/nutrition/analyze", "AnalyzeNutritionResponse", "Nutrition", "AnalyzeNutritionRequest"),
            ("GET /api/v1/categories/{id}", "Category", "Category", "GetCategoryRequest"),
            ("GET /api/users/{id}/meal-plans", "MealPlans", "MealPlan", "GetMealPlanRequest"),
            ("GET /api/status", "Status", "Status", "GetStatusRequest"),
        ])
    func endpointNames(endpoint: String, response: String, item: String, request: String) throws {
        let names = EndpointModelNames(try #require(Endpoint(description: endpoint)))
        #expect(names.response == response)
        #expect(names.responseItem == item)
        #expect(names.request == request)
    }

    @Test(
        "JSON keys become Swift names",
        arguments: [
            ("created_at", "createdAt"), ("avatarURL", "avatarURL"), ("calories-total", "caloriesTotal"),
            ("2fa", "_2fa"), ("ID", "id"), ("self", "selfValue"), ("", "field"), ("URLString", "urlString"),
        ])
    func propertyNames(key: String, name: String) {
        #expect(SwiftNaming.propertyName(forKey: key) == name)
    }

    /// The README's promise: a resource's list items and its item are one type, whichever side
    /// carries a field the other lacks (a list's `rank`, an item's `bio`); such a field is optional.
    @Test(
        "list and item objects of a resource are one type, whichever carries extra fields",
        arguments: [
            (#", "rank": 1"#, ""), ("", #", "bio": "b""#), (#", "rank": 1"#, #", "bio": "b""#),
        ])
    func listAndItemAreOneType(listExtra: String, itemExtra: String) {
        let interactions = [
            Recordings.make(.get, "/api/users", body: Data(#"[{"id": 1, "name": "Ada"\#(listExtra)}, {"id": 2, "name": "Bob"\#(listExtra)}]"#.utf8)),
            Recordings.make(.get, "/api/users/1", body: Data(#"{"id": 1, "name": "Ada"\#(itemExtra)}"#.utf8)),
        ].enumerated().map { index, interaction in
            var interaction = interaction
            interaction.id = Int64(index + 1)
            return interaction
        }
        let generated = SwiftModelGenerator(cassette: "dev").generate(RecordedOperations(interactions: interactions))
        #expect(generated.files.map(\.typeName) == ["User"])
        #expect(generated.roots.map(\.typeName) == ["[User]", "User"])
        let user = generated.files.first?.contents ?? ""
        if !listExtra.isEmpty { #expect(user.contains("    public let rank: Int?\n"), "\(user)") }
        if !itemExtra.isEmpty { #expect(user.contains("    public let bio: String?\n"), "\(user)") }
    }

    /// Objects of one resource path that share no identity are different things (a create
    /// request and its response): they stay apart.
    @Test func objectsWithoutASharedIdentityStayApart() {
        let interactions = [
            Recordings.make(.get, "/api/jobs", body: Data(#"[{"id": 1, "state": "done"}]"#.utf8)),
            Recordings.make(.get, "/api/jobs/1", body: Data(#"{"queue": "default", "workers": 3}"#.utf8)),
        ].enumerated().map { index, interaction in
            var interaction = interaction
            interaction.id = Int64(index + 1)
            return interaction
        }
        let generated = SwiftModelGenerator(cassette: "dev").generate(RecordedOperations(interactions: interactions))
        #expect(generated.files.count == 2, "\(generated.files.map(\.typeName))")
    }
}
