import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

/// Recordings with the shapes that make model generation hard: optional and nullable fields,
/// snake_case, kebab-case, leading-digit and keyword keys, nested arrays of objects, mixed-type
/// and empty arrays, dates with and without fractions, a root array, an array of arrays, a
/// request body, and one shape used by two endpoints.
package enum CodegenSamples {
    package static let meal1 = #"""
        {"id": 1, "meal_name": "Soup", "calories-total": 120.5, "2fa": true, "default": "x", "class": 3,
         "self": "s", "createdAt": "2024-05-01T12:30:00Z", "notes": null, "tags": ["a", "b"],
         "items": [{"food_id": 7, "grams": 100, "nutrients": [{"name": "fat", "amount": 1.5}]}],
         "mixed": [1, "two", true], "empty": [], "score": 3, "extra": {"a": 1}, "user_id": 5, "userId": 6,
         "café": "au lait"}
        """#
    package static let meal2 = #"""
        {"id": 2, "meal_name": "Salad", "calories-total": 80, "2fa": false, "default": "y", "class": 4,
         "self": "t", "createdAt": "2024-05-02T08:00:00.123+02:00", "notes": "fresh", "tags": [],
         "items": [{"food_id": 8, "grams": 50.5, "nutrients": []}, {"food_id": 9, "grams": 1, "nutrients": [{"name": "salt", "amount": 2}]}],
         "mixed": [], "empty": [], "score": 4.5, "union": 1, "café": "noir"}
        """#
    package static let meal3 = #"""
        {"id": 3, "meal_name": "Stew", "calories-total": 300.25, "2fa": true, "default": "z", "class": 5,
         "self": "u", "createdAt": "2024-05-03T19:45:00Z", "notes": null, "tags": ["hot"],
         "items": [], "mixed": [null, 2.5], "empty": [], "score": 1, "union": "one", "café": "crème"}
        """#

    package static var interactions: [Interaction] {
        var recordings = [
            Recordings.make(.get, "/api/meals/1", body: Recordings.json(meal1)),
            Recordings.make(.get, "/api/meals/2", body: Recordings.json(meal2)),
            Recordings.make(.get, "/api/meals/3", body: Recordings.json(meal3)),
            Recordings.make(.get, "/api/meals/4", status: 404, body: Recordings.json(#"{"error": "no meal 4"}"#)),
            Recordings.make(.get, "/api/tags", body: Recordings.json(##"[{"tag_name": "hot", "uses": 3}, {"tag_name": "cold", "uses": 1, "color": "#00f"}]"##)),
            Recordings.make(.get, "/api/stats", body: Recordings.json("[[1, 2], [3], []]")),
            Recordings.make(.get, "/api/users/1", body: Recordings.json(#"{"id": 1, "name": "Ada"}"#)),
            Recordings.make(
                .get, "/api/profile",
                body: Recordings.json(#"{"owner": {"id": 2, "name": "Alan"}, "since": "2024-01-01", "friends": [{"id": 3, "name": "Grace"}]}"#)),
            Recordings.make(
                .post, "/api/meals/log",
                requestHeaders: [.contentType: "application/json"],
                requestBody: Recordings.json(#"{"meal_id": 1, "eaten_at": "2024-05-01T12:30:00Z", "portion": 0.5}"#),
                body: Recordings.json(#"{"ok": true, "logged_at": "2024-05-01T12:30:01Z"}"#)
            ),
            Recordings.make(.get, "/api/health", responseHeaders: [.contentType: "text/plain"], body: Data("ok".utf8)),
        ]
        // Distinct recording times, so "most recent" is well defined.
        for index in recordings.indices {
            recordings[index].recordedAt = Recordings.recordedAt.addingTimeInterval(Double(index))
        }
        return recordings
    }
}
