import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// One GraphQL URL serves many operations: the registry's routes name an operation (and
/// optionally variables), and `MockAPIClient` answers each operation from its own fixture.
@Suite("MockResponseRegistry GraphQL operations")
struct MockGraphQLRouteTests {
    private let endpoint = URL(string: "https://dev-api.wellplate.com/graphql")!
    private static let getUser = "query GetUser($id: ID!) { user(id: $id) { id name } }"

    private func body(_ object: JSONValue) -> Data { object.jsonData() }

    private func post(_ name: String?, document: String? = getUser, variables: JSONValue? = nil, hash: String? = nil) -> Data {
        var object: JSONObject = [:]
        object["operationName"] = name.map(JSONValue.string)
        object["query"] = document.map(JSONValue.string)
        object["variables"] = variables
        if let hash { object["extensions"] = ["persistedQuery": ["version": 1, "sha256Hash": .string(hash)]] }
        return body(.object(object))
    }

    private func registry() throws -> MockResponseRegistry {
        let registry = MockResponseRegistry()
        try registry.register(path: "/graphql", method: .post, fixture: "graphql_any")
        try registry.register(path: "/graphql", operation: "GetUser", fixture: "get_user")
        try registry.register(path: "/graphql", operation: "GetUser", variables: ["id": "2"], fixture: "get_user_2")
        try registry.register(path: "/graphql", operation: "ListUsers", fixture: "list_users")
        return registry
    }

    @Test func anOperationIsAnsweredByItsOwnRouteAndItsVariablesPickTheMostSpecific() throws {
        let registry = try registry()
        #expect(registry.match(url: endpoint, method: .post, body: post("GetUser", variables: ["id": "1"]))?.fixture == "get_user")
        #expect(registry.match(url: endpoint, method: .post, body: post("GetUser", variables: ["id": "2"]))?.fixture == "get_user_2")
        // Variables named by the route must all be sent, with equal values; others may be added.
        #expect(registry.match(url: endpoint, method: .post, body: post("GetUser", variables: ["id": "2", "locale": "en"]))?.fixture == "get_user_2")
        #expect(registry.match(url: endpoint, method: .post, body: post("GetUser", variables: ["id": 2]))?.fixture == "get_user", "2 is not \"2\"")
        #expect(registry.match(url: endpoint, method: .post, body: post("ListUsers", document: "query ListUsers { users { id } }"))?.fixture == "list_users")
        // No operationName: the document's operation names it.
        #expect(registry.match(url: endpoint, method: .post, body: post(nil, variables: ["id": "2"]))?.fixture == "get_user_2")
        // An operation without a route, and a body that is not GraphQL, fall back to the path's route.
        #expect(registry.match(url: endpoint, method: .post, body: post("Other", document: "query Other { x }"))?.fixture == "graphql_any")
        #expect(registry.match(url: endpoint, method: .post, body: Data("not json".utf8))?.fixture == "graphql_any")
        #expect(registry.match(url: endpoint, method: .post, body: nil)?.fixture == "graphql_any")
    }

    @Test func theChoiceDoesNotDependOnRegistrationOrder() throws {
        let routes = try [
            MockRoute(method: .post, path: "/graphql", operation: "GetUser", fixture: "get_user"),
            MockRoute(method: .post, path: "/graphql", operation: "GetUser", variables: ["id": "2"], fixture: "get_user_2"),
            MockRoute(method: .post, path: "/graphql", operation: "GetUser", variables: ["id": "2", "full": true], fixture: "get_user_2_full"),
            MockRoute(method: .post, path: "/{api}", operation: "GetUser", fixture: "any_path"),
        ]
        for order in [routes, routes.reversed(), [routes[2], routes[0], routes[3], routes[1]]] {
            let registry = MockResponseRegistry(registrations: order)
            #expect(registry.match(url: endpoint, method: .post, body: post("GetUser", variables: ["id": "2", "full": true]))?.fixture == "get_user_2_full")
            #expect(registry.match(url: endpoint, method: .post, body: post("GetUser", variables: ["id": "2"]))?.fixture == "get_user_2")
            #expect(registry.match(url: endpoint, method: .post, body: post("GetUser", variables: ["id": "9"]))?.fixture == "get_user")
            let other = URL(string: "https://dev-api.wellplate.com/gql")!
            let match = registry.match(url: other, method: .post, body: post("GetUser"))
            #expect(match?.fixture == "any_path")
            #expect(match?.parameters == ["api": "gql"])
        }
    }

    @Test func apollosGetFormAndAHashOnlyRequestNamedByItsHeaderFindThePostRoute() throws {
        let registry = try registry()
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)!
        components.queryItems = [
            URLQueryItem(name: "operationName", value: "GetUser"), URLQueryItem(name: "query", value: Self.getUser),
            URLQueryItem(name: "variables", value: #"{"id":"2"}"#),
        ]
        #expect(registry.match(url: components.url!, method: .get, body: nil)?.fixture == "get_user_2")
        // A hash-only request without operationName: only Apollo's header names it.
        let hashOnly = post(nil, document: nil, variables: ["id": "1"], hash: String(repeating: "a", count: 64))
        #expect(registry.match(url: endpoint, method: .post, body: hashOnly)?.fixture == "graphql_any")
        #expect(registry.match(url: endpoint, method: .post, headers: ["x-apollo-operation-name": "GetUser"], body: hashOnly)?.fixture == "get_user")
    }

    @Test func registeringTheSameOperationAndVariablesAgainReplacesTheRoute() throws {
        let registry = try registry()
        try registry.register(path: "/graphql", operation: "GetUser", variables: ["id": "2"], fixture: "replaced")
        #expect(registry.registrations.count == 4)
        #expect(registry.match(url: endpoint, method: .post, body: post("GetUser", variables: ["id": "2"]))?.fixture == "replaced")
        #expect(registry.match(path: RequestPath(url: endpoint), method: .post)?.fixture == "graphql_any", "without a body no operation matches")
    }

    @Test func badOperationsAndVariablesAreRefusedSayingWhy() {
        #expect(throws: MockRegistryError.self) { try MockRoute(method: .post, path: "/graphql", operation: "", fixture: "x") }
        #expect(throws: MockRegistryError.self) { try MockRoute(method: .post, path: "/graphql", operation: "query GetUser", fixture: "x") }
        do {
            _ = try MockRoute(method: .post, path: "/graphql", operation: "GetUser", variables: ["1"], fixture: "x")
            Issue.record("an array of variables was accepted")
        } catch {
            #expect(error.problem == #"variables must be a JSON object such as {"id": "1"}, not ["1"]"#)
        }
        #expect(throws: MockRegistryError.self) { try MockRoute(method: .post, path: "/graphql", variables: ["id": "1"], fixture: "x") }
    }

    // MARK: registry.json

    @Test func operationRoutesRoundTripThroughTheFileAfterThePathRoutes() throws {
        let registry = try registry()
        let text = String(decoding: registry.fileData(), as: UTF8.self)
        #expect(
            text == """
                {
                  "routes": [
                    {
                      "fixture": "graphql_any",
                      "method": "POST",
                      "path": "/graphql"
                    },
                    {
                      "fixture": "get_user",
                      "method": "POST",
                      "operation": "GetUser",
                      "path": "/graphql"
                    },
                    {
                      "fixture": "get_user_2",
                      "method": "POST",
                      "operation": "GetUser",
                      "path": "/graphql",
                      "variables": {
                        "id": "2"
                      }
                    },
                    {
                      "fixture": "list_users",
                      "method": "POST",
                      "operation": "ListUsers",
                      "path": "/graphql"
                    }
                  ],
                  "version": 1
                }

                """)
        let parsed = try MockResponseRegistry.parse(registry.fileData(), file: "registry.json")
        #expect(parsed == registry.registrations)
    }

    @Test func aMalformedOperationRouteInTheFileSaysWhereAndWhat() {
        func problem(_ route: String) -> String {
            do {
                _ = try MockResponseRegistry.parse(Data(#"{"version": 1, "routes": [\#(route)]}"#.utf8), file: "registry.json")
                return "accepted"
            } catch {
                return error.description
            }
        }
        #expect(
            problem(#"{"method": "POST", "path": "/graphql", "operation": 3, "fixture": "x"}"#)
                == "registry.json: $.routes[0].operation: must be a string, not 3")
        #expect(
            problem(#"{"method": "POST", "path": "/graphql", "operation": "GetUser", "variables": "id=1", "fixture": "x"}"#)
                == #"registry.json: $.routes[0].variables: variables must be a JSON object such as {"id": "1"}, not "id=1""#)
        let twice = #"{"method": "POST", "path": "/graphql", "operation": "GetUser", "fixture": "a"}"#
        #expect(
            problem(twice + "," + twice.replacingOccurrences(of: #""a""#, with: #""b""#))
                == "registry.json: $.routes[1]: repeats the route of $.routes[0] (POST /graphql GetUser); keep one of them")
    }

    // MARK: MockAPIClient

    struct UserData: Decodable, Sendable, Equatable {
        struct User: Decodable, Sendable, Equatable {
            let id: String
            let name: String
        }
        let user: User?
    }

    @Test func theMockClientAnswersEachOperationFromItsFixtureThroughTheGraphQLHelper() async throws {
        let registryFile = String(decoding: try registry().fileData(), as: UTF8.self)
        let files = [
            "registry.json": registryFile,
            "get_user.json": #"{"data": {"user": {"id": "1", "name": "Ada"}}}"#,
            "get_user_2.json": #"{"data": {"user": {"id": "2", "name": "Grace"}}}"#,
            "list_users.json": #"{"data": {"users": []}}"#,
            "graphql_any.json": #"{"errors": [{"message": "no such operation", "path": ["user", 0], "extensions": {"code": "NOPE"}}]}"#,
        ]
        try await withFixturesDirectory(files) { directory in
            let client = try MockAPIClient(fixturesDirectory: directory)
            let ada = try await client.graphQL(url: endpoint, query: Self.getUser, operationName: "GetUser", variables: ["id": "1"], dataType: UserData.self)
            #expect(ada.user?.name == "Ada")
            let grace = try await client.graphQL(url: endpoint, query: Self.getUser, variables: ["id": "2"], dataType: UserData.self)
            #expect(grace.user?.name == "Grace")
            do {
                _ = try await client.graphQL(url: endpoint, query: "query Other { user { id name } }", operationName: "Other", dataType: UserData.self)
                Issue.record("errors were decoded as data")
            } catch let error as GraphQLResponseError {
                #expect(error.errors == [GraphQLError(message: "no such operation", path: ["user", "0"], code: "NOPE")])
                #expect(error.description == "GraphQL operation Other failed: no such operation (at user.0)")
            }
            let sent = try #require(client.calls.first)
            #expect(sent.method == .post)
            #expect(try JSONValue(parsing: try #require(sent.body)) == ["query": .string(Self.getUser), "operationName": "GetUser", "variables": ["id": "1"]])
        }
    }
}
