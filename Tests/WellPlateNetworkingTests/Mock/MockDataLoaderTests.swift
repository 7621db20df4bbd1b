import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

@Suite("MockDataLoader")
struct MockDataLoaderTests {
    private static let user = #"{"id": 7, "name": "Ada", "email": "ada@example.com", "role": "admin", "createdAt": "2026-01-31T12:00:00.250Z"}"#

    @Test func aFixtureDecodesWithTheLiveClientsDates() async throws {
        try await withFixturesDirectory(["user_detail.json": Self.user]) { directory throws in
            let user = try MockDataLoader(directory: directory).load("user_detail", as: User.self)
            #expect(user.id == 7)
            #expect(user.createdAt == JSONCoding.parseISO8601("2026-01-31T12:00:00.250Z"))
        }
    }

    @Test func fixtureNamesMayReachIntoSubfolders() async throws {
        try await withFixturesDirectory(["users/detail.json": Self.user]) { directory throws in
            #expect(try MockDataLoader(directory: directory).load("users/detail", as: User.self).name == "Ada")
        }
    }

    @Test func rawDataComesBackByteForByte() async throws {
        let contents = "{\n  \"status\" : \"ok\"\n}\n"
        try await withFixturesDirectory(["health.json": contents]) { directory throws in
            #expect(try MockDataLoader(directory: directory).data(for: "health") == Data(contents.utf8))
        }
    }

    @Test func aMissingFixtureNamesThePathAndTheRegisteredRoutes() async throws {
        try await withFixturesDirectory { directory throws in
            let registry = MockResponseRegistry()
            try registry.register(path: "/api/users/{id}", method: .get, fixture: "user_detail")
            try registry.register(path: "/api/health", method: .get, fixture: "health")
            let loader = MockDataLoader(directory: directory, registry: registry)
            let error = #expect(throws: MockDataError.self) { try loader.data(for: "mock_api_users_get") }
            let expectedPath = directory.appendingPathComponent("mock_api_users_get.json").standardizedFileURL.path
            #expect(error?.kind == .notFound)
            #expect(error?.searched == [expectedPath])
            let message = error?.description ?? ""
            #expect(message.contains("\"mock_api_users_get\""))
            #expect(message.contains(expectedPath))
            #expect(message.contains("GET /api/health -> health; GET /api/users/{id} -> user_detail"), "\(message)")
        }
    }

    @Test func aMissingFixtureWithNothingConfiguredSaysSo() {
        let error = #expect(throws: MockDataError.self) { try MockDataLoader().data(for: "anything") }
        #expect(error?.description.contains("no fixtures directory or bundle is configured") == true)
        #expect(error?.description.contains("no routes are registered") == true)
    }

    @Test func invalidJSONNamesTheFileLineAndColumn() async throws {
        try await withFixturesDirectory(["broken.json": "{\n  \"id\": 7,\n  \"name\": \"Ada\",,\n}"]) { directory throws in
            let error = #expect(throws: MockDataError.self) { try MockDataLoader(directory: directory).data(for: "broken") }
            #expect(error?.kind == .invalidJSON)
            #expect(error?.line == 3)
            #expect(error?.column == 17)
            let message = error?.description ?? ""
            #expect(message.contains(directory.appendingPathComponent("broken.json").standardizedFileURL.path))
            #expect(message.contains("line 3, column 17"), "\(message)")
        }
    }

    @Test func anEmptyFileIsInvalidJSON() async throws {
        try await withFixturesDirectory(["empty.json": ""]) { directory throws in
            let error = #expect(throws: MockDataError.self) { try MockDataLoader(directory: directory).data(for: "empty") }
            #expect(error?.kind == .invalidJSON)
        }
    }

    @Test func aTypeMismatchNamesTheFileTheTypeAndTheJSONPath() async throws {
        struct Meal: Decodable {
            let name: String
            let calories: Int
        }
        struct Day: Decodable { let meals: [Meal] }
        let json = #"{"meals": [{"name": "oats", "calories": 300}, {"name": "soup", "calories": "lots"}]}"#
        try await withFixturesDirectory(["day.json": json]) { directory throws in
            let error = #expect(throws: MockDataError.self) { try MockDataLoader(directory: directory).load("day", as: Day.self) }
            #expect(error?.kind == .typeMismatch)
            #expect(error?.jsonPath == "$.meals[1].calories")
            let message = error?.description ?? ""
            #expect(message.contains("day.json"))
            #expect(message.contains("Day"))
            #expect(message.contains("$.meals[1].calories"), "\(message)")
        }
    }

    @Test(arguments: ["", "user.json", "/etc/passwd", "../outside", "a//b"])
    func unusableNamesAreRejectedBeforeTouchingTheDisk(name: String) async throws {
        try await withFixturesDirectory { directory throws in
            let error = #expect(throws: MockDataError.self) { try MockDataLoader(directory: directory).data(for: name) }
            #expect(error?.kind == .invalidName)
        }
    }

    @Test func bundleResourcesAreFoundWhenTheDirectoryHasNone() async throws {
        try await withFixturesDirectory(["Bundle/MockData/user_detail.json": Self.user, "Bundle/health.json": #"{"ok": true}"#]) { directory throws in
            let bundle = try #require(Bundle(url: directory.appendingPathComponent("Bundle")))
            let user: User = try MockDataLoader.load("MockData/user_detail", bundle: bundle)
            #expect(user.name == "Ada")
            #expect(try MockDataLoader.loadRawData("health", bundle: bundle) == Data(#"{"ok": true}"#.utf8))

            let loader = MockDataLoader(directory: directory, bundle: bundle, bundleSubdirectory: "MockData")
            #expect(try loader.load("user_detail", as: User.self).id == 7)
            let error = #expect(throws: MockDataError.self) { try loader.data(for: "nowhere") }
            #expect(error?.searched.count == 2)
            #expect(error?.description.contains("bundle") == true)
        }
    }

    @Test func theDirectoryWinsOverTheBundle() async throws {
        try await withFixturesDirectory(["Bundle/a.json": "1", "a.json": "2"]) { directory throws in
            let bundle = try #require(Bundle(url: directory.appendingPathComponent("Bundle")))
            #expect(try MockDataLoader(directory: directory, bundle: bundle).load("a", as: Int.self) == 2)
        }
    }
}
