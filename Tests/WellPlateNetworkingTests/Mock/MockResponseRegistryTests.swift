import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

@Suite("MockResponseRegistry")
struct MockResponseRegistryTests {
    private func url(_ pathAndQuery: String) -> URL {
        URL(string: "https://dev-api.wellplate.com" + pathAndQuery)!
    }

    private func registry(_ routes: [(HTTPMethod, String, String)]) throws -> MockResponseRegistry {
        let registry = MockResponseRegistry()
        for (method, path, fixture) in routes {
            try registry.register(path: path, method: method, fixture: fixture)
        }
        return registry
    }

    // MARK: Precedence

    @Test func anExactPathBeatsAPatternWhateverTheRegistrationOrder() throws {
        for routes in [
            [(HTTPMethod.get, "/api/users/{id}", "user"), (.get, "/api/users/me", "me")],
            [(HTTPMethod.get, "/api/users/me", "me"), (.get, "/api/users/{id}", "user")],
        ] {
            let registry = try registry(routes)
            #expect(registry.fixtureName(for: url("/api/users/me"), method: .get) == "me")
            let match = try #require(registry.match(url: url("/api/users/42"), method: .get))
            #expect(match.fixture == "user")
            #expect(match.pattern.text == "/api/users/{id}")
            #expect(match.parameters == ["id": "42"])
        }
    }

    @Test func fewerParametersBeatMore() throws {
        for routes in [
            [(HTTPMethod.get, "/api/{collection}/{id}", "generic"), (.get, "/api/users/{id}", "user")],
            [(HTTPMethod.get, "/api/users/{id}", "user"), (.get, "/api/{collection}/{id}", "generic")],
        ] {
            let registry = try registry(routes)
            #expect(registry.fixtureName(for: url("/api/users/7"), method: .get) == "user")
            #expect(registry.match(url: url("/api/meals/7"), method: .get)?.parameters == ["collection": "meals", "id": "7"])
        }
    }

    @Test func theLongerLiteralPrefixWinsAmongEquallyManyParameters() throws {
        for routes in [
            [(HTTPMethod.get, "/api/{kind}/meals", "by-kind"), (.get, "/api/users/{id}", "user")],
            [(HTTPMethod.get, "/api/users/{id}", "user"), (.get, "/api/{kind}/meals", "by-kind")],
        ] {
            let registry = try registry(routes)
            #expect(registry.fixtureName(for: url("/api/users/meals"), method: .get) == "user")
            #expect(registry.fixtureName(for: url("/api/plans/meals"), method: .get) == "by-kind")
        }
        #expect(try PathPattern("/api/users/{id}").literalPrefixLength == 11)
        #expect(try PathPattern("/api/users").literalPrefixLength == 10)
    }

    @Test func equalPrefixesFallBackToTheEarlierLiteralSegment() throws {
        for routes in [
            [(HTTPMethod.get, "/xy/{p}/{q}/z", "late-literal"), (.get, "/xy/{p}/w/{q}", "early-literal")],
            [(HTTPMethod.get, "/xy/{p}/w/{q}", "early-literal"), (.get, "/xy/{p}/{q}/z", "late-literal")],
        ] {
            let registry = try registry(routes)
            #expect(registry.fixtureName(for: url("/xy/1/w/z"), method: .get) == "early-literal")
        }
    }

    @Test func theChoiceIsTheSameForEveryRegistrationOrder() throws {
        // 100 distinct shapes over the segments a, b and a parameter, lengths 1 to 4.
        var shapes: [[String?]] = [[]]
        var patterns: [String] = []
        for _ in 1...4 {
            shapes = shapes.flatMap { shape in ["a", "b", nil].map { shape + [$0] } }
            for shape in shapes {
                var index = 0
                patterns.append(
                    "/"
                        + shape.map { segment in
                            guard let segment else {
                                index += 1
                                return "{p\(index)}"
                            }
                            return segment
                        }.joined(separator: "/"))
            }
        }
        patterns = Array(patterns.prefix(100))
        var probes: [[String]] = [[]]
        var paths: [String] = []
        for _ in 1...4 {
            probes = probes.flatMap { probe in ["a", "b", "c"].map { probe + [$0] } }
            paths += probes.map { "/" + $0.joined(separator: "/") }
        }

        var generator = SeededGenerator(seed: 2026)
        var reference: [String: String]?
        for _ in 0..<20 {
            let registry = MockResponseRegistry()
            for index in patterns.indices.shuffled(using: &generator) {
                try registry.register(path: patterns[index], method: .get, fixture: "route\(index)")
            }
            var chosen: [String: String] = [:]
            for path in paths {
                chosen[path] = registry.fixtureName(for: url(path), method: .get)
            }
            if let reference {
                let differing = paths.filter { chosen[$0] != reference[$0] }
                #expect(differing.isEmpty, "the choice depends on registration order for \(differing.prefix(5))")
            } else {
                reference = chosen
            }
        }

        // The choice follows the documented rules: the fewest parameters, then the longest prefix.
        let registry = try registry(patterns.enumerated().map { (.get, $1, "route\($0)") })
        let parsed = try patterns.map { try PathPattern($0) }
        for path in paths {
            let requestPath = RequestPath(percentEncodedPath: path)
            let candidates = parsed.filter { $0.match(requestPath) != nil }
            guard let fewest = candidates.map(\.parameterCount).min() else {
                #expect(registry.match(url: url(path), method: .get) == nil)
                continue
            }
            let longest = candidates.filter { $0.parameterCount == fewest }.map(\.literalPrefixLength).max()
            let chosen = try #require(registry.match(url: url(path), method: .get)).pattern
            #expect(chosen.parameterCount == fewest)
            #expect(chosen.literalPrefixLength == longest)
        }
    }

    // MARK: Matching

    @Test func aParameterMatchesExactlyOneNonEmptySegment() throws {
        let registry = try registry([(.get, "/api/users/{id}", "user")])
        #expect(registry.match(url: url("/api/users/42"), method: .get) != nil)
        #expect(registry.match(url: url("/api/users/"), method: .get) == nil)
        #expect(registry.match(url: url("/api/users"), method: .get) == nil)
        #expect(registry.match(url: url("/api/users/42/meals"), method: .get) == nil)
    }

    @Test func onlyThePathTakesPartAndItIsPercentDecodedPerSegment() throws {
        let registry = try registry([(.get, "/api/files/{name}", "file"), (.get, "/api/caf%C3%A9", "cafe")])
        #expect(registry.match(url: url("/api/files/a?expand=1&b=2"), method: .get)?.parameters == ["name": "a"])
        #expect(registry.match(url: url("/api/files/my%20doc%2Fv2"), method: .get)?.parameters == ["name": "my doc/v2"])
        #expect(registry.fixtureName(for: url("/api/café".addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!), method: .get) == "cafe")
        #expect(registry.fixtureName(for: url("/api/caf%c3%a9"), method: .get) == "cafe")
    }

    @Test func theMethodIsPartOfTheRoute() throws {
        let registry = try registry([(.get, "/api/users/{id}", "user"), (.delete, "/api/users/{id}", "user-deleted")])
        #expect(registry.fixtureName(for: url("/api/users/1"), method: .get) == "user")
        #expect(registry.fixtureName(for: url("/api/users/1"), method: .delete) == "user-deleted")
        #expect(registry.fixtureName(for: url("/api/users/1"), method: .put) == "mock_api_users_1_put")
    }

    @Test(arguments: [
        ("/api/health", HTTPMethod.get, "mock_api_health_get"),
        ("/api/users/42", .delete, "mock_api_users_42_delete"),
        ("/api/v1.2/items", .post, "mock_api_v1_2_items_post"),
        ("/api/search?q=salad&limit=5", .get, "mock_api_search_get"),
        ("/api/users/", .get, "mock_api_users__get"),
        ("/", .options, "mock__options"),
        ("", .get, "mock__get"),
        ("/api/my%20file.json", .patch, "mock_api_my file_json_patch"),
    ])
    func unmappedRequestsGetTheDesignsDefaultName(path: String, method: HTTPMethod, expected: String) throws {
        let registry = try registry([(.get, "/api/other", "other")])
        #expect(registry.fixtureName(for: url(path), method: method) == expected)
    }

    // MARK: Registration

    @Test func registeringTheSameRouteAgainReplacesIt() throws {
        let registry = try registry([
            (.get, "/api/users/{id}", "first"), (.get, "/api/users/{userID}", "second"),
            (.get, "/api/health", "old"), (.get, "/api/health", "new"),
        ])
        #expect(registry.registrations.map(\.description) == ["GET /api/health -> new", "GET /api/users/{userID} -> second"])
        #expect(registry.match(url: url("/api/users/9"), method: .get)?.parameters == ["userID": "9"])
    }

    @Test func registrationsAreSortedByPathThenMethod() throws {
        let registry = try registry([
            (.post, "/b", "b-post"), (.get, "/b", "b-get"), (.delete, "/a/{id}", "a-delete"), (.get, "/a", "a-get"),
        ])
        #expect(registry.registrations.map(\.description) == ["GET /a -> a-get", "DELETE /a/{id} -> a-delete", "GET /b -> b-get", "POST /b -> b-post"])
        let copy = MockResponseRegistry(registrations: registry.registrations.reversed())
        #expect(copy.registrations == registry.registrations)
    }

    @Test(arguments: [
        ("api/users", "must start with \"/\""),
        ("", "must start with \"/\""),
        ("/api/{id", "never closes the \"{\" at character 6"),
        ("/api/{id/x}", "never closes"),
        ("/api/id}", "\"}\" without a matching \"{\" at character 8"),
        ("/api/{}", "empty parameter"),
        ("/api/{1d}", "not an identifier"),
        ("/api/{user id}", "not an identifier"),
        ("/files/{name}.json", "must be a whole segment"),
        ("/a/{x}/{x}", "uses the parameter {x} twice"),
        ("/a/{{x}}", "cannot nest"),
        ("/a?x=1", "the query is ignored"),
    ])
    func malformedPatternsAreRejected(pattern: String, message: String) {
        let error = #expect(throws: MockRegistryError.self) {
            try MockResponseRegistry().register(path: pattern, method: .get, fixture: "x")
        }
        #expect(error?.description.contains(message) == true, "\(error?.description ?? "")")
        #expect(error?.description.contains(quoted(pattern)) == true)
    }

    @Test(arguments: ["", "users.json", "/etc/passwd", "../secrets", "a//b", "a/./b"])
    func fixtureNamesMustStayInsideTheFixturesDirectory(name: String) {
        #expect(throws: MockRegistryError.self) {
            try MockResponseRegistry().register(path: "/api/x", method: .get, fixture: name)
        }
    }

    @Test func fixtureNamesMayReachIntoSubfolders() throws {
        let registry = try registry([(.get, "/api/users", "users/list")])
        #expect(registry.fixtureName(for: url("/api/users"), method: .get) == "users/list")
    }
}

/// A pattern as error messages quote it.
private func quoted(_ text: String) -> String {
    "\"" + text + "\""
}
