import NIOHTTP1

/// `/api/nutrition/analyze` (per-100 g table scaled by weight) and `/api/nutrition/history`.
struct NutritionResource {
    static let maximumGrams = 100_000

    var routes: [Route] {
        [
            Route(.POST, "/api/nutrition/analyze") { request throws(APIFailure) in
                let body = try JSONObjectBody(request)
                let food = try body.requiredString("food")
                let grams = try body.positiveNumber("grams")
                // Scaled calories become an Int: a weight like 1e300 would overflow it.
                guard grams.value <= Double(Self.maximumGrams) else {
                    throw .badRequest("Field \"grams\" must be at most \(Self.maximumGrams)")
                }
                let key = food.trimmingWhitespace.lowercased()
                guard let per100 = SeedData.nutrition[key] else {
                    throw Self.unknownFood(food)
                }
                let factor = grams.value / 100
                return .json([
                    "food": .string(key),
                    "grams": grams.json,
                    "calories": .integer(Int((per100.calories * factor).rounded())),
                    "protein": .rounded(per100.protein * factor),
                    "carbs": .rounded(per100.carbs * factor),
                    "fat": .rounded(per100.fat * factor),
                    "fiber": .rounded(per100.fiber * factor),
                ])
            },
            Route(.GET, "/api/nutrition/history", compressible: true) { request throws(APIFailure) in
                let entries = SeedData.history
                let limited = try request.nonNegativeInteger("limit").map { Array(entries.prefix($0)) } ?? entries
                return .json(.array(limited.map(\.json)))
            },
        ]
    }

    private static func unknownFood(_ food: String) -> APIFailure {
        let known = SeedData.nutrition.keys.sorted().joined(separator: ", ")
        return APIFailure(
            status: .unprocessableEntity,
            code: "unknown_food",
            message: "No nutrition data for \"\(food)\"; known foods: \(known)"
        )
    }
}
