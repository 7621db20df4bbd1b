import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

@Suite("registry.json")
struct MockRegistryFileTests {
    private let routes: [(HTTPMethod, String, String)] = [
        (.get, "/api/users/{id}", "users_id_get"),
        (.delete, "/api/users/{id}", "users_id_delete"),
        (.get, "/api/health", "health"),
        (.post, "/api/nutrition", "nutrition/computed"),
    ]

    private func registry(_ routes: [(HTTPMethod, String, String)]) throws -> MockResponseRegistry {
        let registry = MockResponseRegistry()
        for (method, path, fixture) in routes {
            try registry.register(path: path, method: method, fixture: fixture)
        }
        return registry
    }

    @Test func theFileIsSortedPrettyAndStable() throws {
        let text = String(decoding: try registry(routes).fileData(), as: UTF8.self)
        #expect(
            text == """
                {
                  "routes": [
                    {
                      "fixture": "health",
                      "method": "GET",
                      "path": "/api/health"
                    },
                    {
                      "fixture": "nutrition/computed",
                      "method": "POST",
                      "path": "/api/nutrition"
                    },
                    {
                      "fixture": "users_id_delete",
                      "method": "DELETE",
                      "path": "/api/users/{id}"
                    },
                    {
                      "fixture": "users_id_get",
                      "method": "GET",
                      "path": "/api/users/{id}"
                    }
                  ],
                  "version": 1
                }

                """)
    }

    @Test func savingLoadingAndSavingAgainGivesIdenticalBytes() async throws {
        try await withFixturesDirectory { directory throws in
            let file = directory.appendingPathComponent(MockResponseRegistry.fileName)
            let original = try registry(routes)
            try original.save(to: file)
            let first = try Data(contentsOf: file)

            let loaded = try MockResponseRegistry.load(fixturesDirectory: directory)
            #expect(loaded.registrations == original.registrations)
            try loaded.save(to: file)
            #expect(try Data(contentsOf: file) == first)

            let reordered = try registry(routes.reversed())
            #expect(reordered.fileData() == first)
        }
    }

    @Test func aDirectoryWithoutARegistryFileGivesAnEmptyRegistry() async throws {
        try await withFixturesDirectory { directory throws in
            #expect(try MockResponseRegistry.load(fixturesDirectory: directory).registrations.isEmpty)
        }
    }

    @Test func lowerCaseMethodsAreAcceptedAndWrittenBackInUpperCase() throws {
        let data = Data(#"{"version": 1, "routes": [{"method": "get", "path": "/a", "fixture": "a"}]}"#.utf8)
        let registry = MockResponseRegistry(registrations: try MockResponseRegistry.parse(data, file: "registry.json"))
        #expect(String(decoding: registry.fileData(), as: UTF8.self).contains(#""method": "GET""#))
    }

    @Test(arguments: [
        (#"{"version": 1, "routes": [}"#, ["line 1, column 27", "is not valid JSON"]),
        ("{\"version\": 1,\n  \"routes\": [\n    {\"method\": \"GET\",}\n  ]\n}", ["line 3, column 22"]),
        (#"[]"#, ["registry.json: $: must be an object"]),
        (#"{"routes": []}"#, ["$.version: is missing"]),
        (#"{"version": 2, "routes": []}"#, ["$.version: is 2", "version 1 only"]),
        (#"{"version": 1}"#, ["$.routes: is missing"]),
        (#"{"version": 1, "routes": {}}"#, ["$.routes: must be an array"]),
        (#"{"version": 1, "routes": [], "extra": true}"#, ["$.extra: is not a registry key"]),
        (#"{"version": 1, "routes": [42]}"#, ["$.routes[0]: must be an object"]),
        (#"{"version": 1, "routes": [{"method": "GET", "path": "/a"}]}"#, ["$.routes[0].fixture: is missing"]),
        (#"{"version": 1, "routes": [{"method": "GET", "path": "/a", "fixtur": "a"}]}"#, ["$.routes[0].fixtur: is not a registry key"]),
        (#"{"version": 1, "routes": [{"method": "FETCH", "path": "/a", "fixture": "a"}]}"#, ["$.routes[0].method: \"FETCH\" is not a method"]),
        (#"{"version": 1, "routes": [{"method": "GET", "path": 7, "fixture": "a"}]}"#, ["$.routes[0].path: must be a string, not 7"]),
        (
            #"{"version": 1, "routes": [{"method": "GET", "path": "/a", "fixture": "a"}, {"method": "GET", "path": "a/{id", "fixture": "b"}]}"#,
            ["$.routes[1].path: pattern \"a/{id\" must start with \"/\""]
        ),
        (
            #"{"version": 1, "routes": [{"method": "GET", "path": "/a", "fixture": "a.json"}]}"#,
            ["$.routes[0].fixture: fixture name \"a.json\"", "drop the extension"]
        ),
        (
            #"{"version": 1, "routes": [{"method": "GET", "path": "/u/{id}", "fixture": "a"}, {"method": "GET", "path": "/u/{key}", "fixture": "b"}]}"#,
            ["$.routes[1]: repeats the route of $.routes[0]"]
        ),
    ])
    func badFilesNameTheFileTheLocationAndTheProblem(contents: String, fragments: [String]) async throws {
        try await withFixturesDirectory([MockResponseRegistry.fileName: contents]) { directory throws in
            let file = directory.appendingPathComponent(MockResponseRegistry.fileName)
            let error = #expect(throws: MockRegistryError.self) {
                try MockResponseRegistry.load(fixturesDirectory: directory)
            }
            let message = error?.description ?? ""
            #expect(message.hasPrefix(file.path + ": "), "\(message)")
            for fragment in fragments {
                #expect(message.contains(fragment), "\(message) lacks \(fragment)")
            }
        }
    }

    @Test func anUnwritableTargetIsReported() throws {
        let error = #expect(throws: MockRegistryError.self) {
            try MockResponseRegistry().save(to: URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/registry.json"))
        }
        #expect(error?.description.contains("cannot be written") == true)
    }
}
