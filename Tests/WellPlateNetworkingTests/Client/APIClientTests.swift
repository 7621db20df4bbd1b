import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

@Suite("APIClient against the sample API")
struct APIClientTests {
    @Test func getDecodesAGzippedListWithISODates() async throws {
        try await withSampleAPI { base in
            let client = try TestClients.live()
            let users = try await client.get(url: base.appending(pathAndQuery: "/api/users"), responseType: [User].self)
            #expect(users.map(\.id) == [1, 2, 3])
            #expect(users[0].name == "Ada Lovelace")
            #expect(users[1].avatarURL == nil)
            #expect(users[0].createdAt == ISO8601DateFormatter().date(from: "2026-01-02T09:00:00Z"))
        }
    }

    @Test func everyConvenienceMethodReachesTheServer() async throws {
        try await withSampleAPI { base in
            let client = try TestClients.live()
            let created = try await client.post(
                url: base.appending(pathAndQuery: "/api/users"),
                body: try client.encodeBody(NewUser(name: "Katherine Johnson", email: "kj@example.com", role: "member")),
                responseType: User.self
            )
            #expect(created.id == 4)
            let detail = try await client.get(url: base.appending(pathAndQuery: "/api/users/4"), responseType: User.self)
            #expect(detail == created)
            let replaced = try await client.put(
                url: base.appending(pathAndQuery: "/api/users/4"),
                body: try client.encodeBody(NewUser(name: "K. Johnson", email: "k@example.com")),
                responseType: User.self
            )
            #expect(replaced.name == "K. Johnson")
            let patched = try await client.patch(
                url: base.appending(pathAndQuery: "/api/users/4"),
                body: try client.encodeBody(["role": "admin"]),
                responseType: User.self
            )
            #expect(patched.role == "admin")
            #expect(patched.email == "k@example.com")
            try await client.putVoid(
                url: base.appending(pathAndQuery: "/api/users/4"), body: try client.encodeBody(NewUser(name: "KJ", email: "kj@example.com")))
            let deleted = try await client.delete(url: base.appending(pathAndQuery: "/api/users/4"), responseType: EmptyResponse.self)
            #expect(deleted == EmptyResponse())
            await #expect(throws: APIError.self) {
                try await client.deleteVoid(url: base.appending(pathAndQuery: "/api/users/4"))
            }
            try await client.deleteVoid(url: base.appending(pathAndQuery: "/api/users/3"))
            try await client.requestVoid(url: base.appending(pathAndQuery: "/api/health"), method: .head, headers: nil, body: nil)
            try await client.requestVoid(url: base.appending(pathAndQuery: "/api/users"), method: .options, headers: nil, body: nil)
        }
    }

    @Test func postSendsJSONAndDecodesTheComputedResult() async throws {
        try await withSampleAPI { base in
            let client = try TestClients.live()
            let info = try await client.post(
                url: base.appending(pathAndQuery: "/api/nutrition/analyze"),
                body: try client.encodeBody(NutritionRequest(food: "Apple", grams: 200)),
                responseType: NutritionalInfo.self
            )
            #expect(info.grams == 200)
            #expect(info.calories > 0)
            let history = try await client.get(url: base.appending(pathAndQuery: "/api/nutrition/history"), responseType: [HistoryEntry].self)
            #expect(history.count == 5)
        }
    }

    @Test func headersAndBodiesTravelBothWays() async throws {
        try await withSampleAPI { base in
            let client = try TestClients.live { configuration in
                configuration.defaultHeaders = ["X-Client": "tests", "X-Overridden": "default"]
                configuration.authHeaderProvider = { ["Authorization": "Bearer from-provider"] }
            }
            let body = Data(#"{"b":1,"a":"é"}"#.utf8)
            let echo = try await client.request(
                url: base.appending(pathAndQuery: "/api/echo?z=1&a=2"),
                method: .put,
                headers: ["X-Overridden": "call", "X-Trace": "abc"],
                body: body,
                responseType: Echo.self
            )
            #expect(echo.method == "PUT")
            #expect(echo.body == #"{"b":1,"a":"é"}"#)
            #expect(echo.query == [["z", "1"], ["a", "2"]])
            #expect(echo.header("X-Client") == "tests")
            #expect(echo.header("X-Overridden") == "call")
            #expect(echo.header("X-Trace") == "abc")
            #expect(echo.header("Authorization") == "Bearer from-provider")
            #expect(echo.header("Content-Type") == "application/json")
            #expect(echo.header("Accept") == "application/json")

            struct Me: Decodable { let name: String }
            let me = try await client.get(url: base.appending(pathAndQuery: "/api/me"), responseType: Me.self)
            #expect(me.name == "Ada Lovelace")
        }
    }

    @Test func everyMethodCarriesItsBody() async throws {
        try await withSampleAPI { base in
            let client = try TestClients.live()
            for method in [HTTPMethod.post, .put, .patch, .delete] {
                let echo = try await client.request(
                    url: base.appending(pathAndQuery: "/api/echo"), method: method, headers: nil, body: Data("payload-\(method.rawValue)".utf8),
                    responseType: Echo.self)
                #expect(echo.method == method.rawValue)
                #expect(echo.body == "payload-\(method.rawValue)")
            }
            let get = try await client.request(url: base.appending(pathAndQuery: "/api/echo"), method: .get, headers: nil, body: nil, responseType: Echo.self)
            #expect(get.body == nil)
        }
    }

    @Test func noContentDecodesAsEmptyResponseButNotAsAValue() async throws {
        try await withSampleAPI { base in
            let client = try TestClients.live()
            let empty = try await client.get(url: base.appending(pathAndQuery: "/api/status/204"), responseType: EmptyResponse.self)
            #expect(empty == EmptyResponse())
            do {
                _ = try await client.get(url: base.appending(pathAndQuery: "/api/status/204"), responseType: User.self)
                Issue.record("a 204 decoded as a User")
            } catch let error as APIError {
                #expect(error.category == .noData)
            }
        }
    }

    @Test(arguments: [
        (400, APIError.Category.badRequest),
        (401, .unauthorized),
        (403, .forbidden),
        (404, .notFound),
        (409, .clientError),
        (422, .clientError),
        (429, .rateLimited),
        (500, .serverError),
        (503, .serverError),
    ])
    func statusesMapToTheirCategory(status: Int, category: APIError.Category) async throws {
        try await withSampleAPI { base in
            let client = try TestClients.live(retryPolicy: .never)
            do {
                _ = try await client.get(url: base.appending(pathAndQuery: "/api/status/\(status)"), responseType: EmptyResponse.self)
                Issue.record("status \(status) did not throw")
            } catch let error as APIError {
                #expect(error.category == category)
                #expect(error.statusCode == status)
                guard case .serverError(_, let message) = error else {
                    Issue.record("expected serverError, got \(error)")
                    return
                }
                #expect(message == "Sample status \(status)")
                #expect(error.localizedDescription.contains("HTTP \(status)"))
            }
        }
    }

    @Test func errorMessagesComeFromTheBody() async throws {
        try await withSampleAPI { base in
            let client = try TestClients.live()
            do {
                _ = try await client.get(url: base.appending(pathAndQuery: "/api/users/42"), responseType: User.self)
                Issue.record("missing user did not throw")
            } catch let error as APIError {
                #expect(error.category == .notFound)
                #expect(error.localizedDescription.contains("User 42 not found"))
            }
            do {
                _ = try await client.get(url: base.appending(pathAndQuery: "/api/me"), responseType: EmptyResponse.self)
                Issue.record("/api/me without credentials did not throw")
            } catch let error as APIError {
                #expect(error.category == .unauthorized)
                #expect(error.localizedDescription.contains("Authorization"))
            }
        }
    }

    @Test func decodingFailuresNameTheTypeAndThePath() async throws {
        struct WrongUser: Decodable { let id: String }
        try await withSampleAPI { base in
            let client = try TestClients.live()
            do {
                _ = try await client.get(url: base.appending(pathAndQuery: "/api/users"), responseType: [WrongUser].self)
                Issue.record("decoded ids as strings")
            } catch let error as APIError {
                guard case .decodingError(let underlying) = error, let detail = underlying as? ResponseDecodingError else {
                    Issue.record("expected a ResponseDecodingError, got \(error)")
                    return
                }
                #expect(detail.path == "$[0].id")
                #expect(detail.typeName.contains("WrongUser"))
                #expect(error.localizedDescription.contains("$[0].id"))
            }
        }
    }

    @Test func invalidURLsAreRejectedBeforeSending() async throws {
        let client = try TestClients.live()
        for text in ["ftp://example.com/file", "file:///etc/passwd", "mailto:someone@example.com"] {
            do {
                _ = try await client.get(url: URL(string: text)!, responseType: EmptyResponse.self)
                Issue.record("\(text) was sent")
            } catch let error as APIError {
                #expect(error.category == .invalidURL)
            }
        }
    }
}
