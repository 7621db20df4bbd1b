import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// Record GraphQL traffic from real clients (the PyPI gql client, requests shaped as Apollo iOS
/// sends them) against a real GraphQL server (ariadne over uvicorn), then replay with the server
/// stopped: the same operations sent otherwise must hit, a changed variable must miss and say why.
@Suite("Proxy GraphQL operations with real peers")
final class ProxyGraphQLTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("c.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    private func record(into store: String? = nil, drifted: Bool = false) async throws -> [GraphQLPeers.Step] {
        try await GraphQLPeers.withUpstream(drifted: drifted) { base in
            try await withInProcessProxy(
                ["record", "--upstream", base.absoluteString, "--port", "0", "--db", store ?? self.store] + workspace.configArguments
            ) { recorder in
                try await GraphQLPeers.runClients("record", against: recorder.url)
            }
        }
    }

    @Test func operationsRecordedFromRealClientsReplayOfflineWhicheverWayTheyAreSent() async throws {
        try workspace.write(#"{"ignoredBodyFields": ["$.variables.clientMutationId"]}"#, to: "cassette.json")
        let recorded = try await record()
        #expect(recorded.count == 8)
        #expect(recorded.allSatisfy { $0.status == 200 && $0.cassette == "recorded" }, "\(recorded.map { "\($0.name) \($0.status) \($0.cassette ?? "-")" })")
        #expect(recorded.first { $0.name == "apollo.apq.ListUsers.hash" }?.body["errors"]?[0]?["message"]?.stringValue == "PersistedQueryNotFound")

        // The upstream is stopped: every answer below comes from the cassette.
        try await withInProcessProxy(["replay", "--port", "0", "--db", store] + workspace.configArguments) { replayer in
            let steps = try await GraphQLPeers.runClients("replay", against: replayer.url)
            let names = steps.map(\.name)
            #expect(
                names == [
                    "gql.GetUser.1", "reformatted.GetUser.2", "reordered.RenameUser", "get.ListUsers", "get.hash.GetUser.1",
                    "apq.ListUsers.hash", "apq.GetUser.2.hash", "Broken",
                ], "hash-only requests must get the real answer, with no retry")
            for step in steps {
                #expect(step.status == 200 && step.cassette == "hit", "\(step.name): \(step.status) \(step.cassette ?? "-") \(step.body)")
            }
            let byName = Dictionary(steps.map { ($0.name, $0.body) }, uniquingKeysWith: { first, _ in first })
            #expect(byName["reformatted.GetUser.2"]?["data"]?["user"]?["name"]?.stringValue == "Grace")
            #expect(byName["get.hash.GetUser.1"]?["data"]?["user"]?["name"]?.stringValue == "Ada")
            #expect(byName["apq.ListUsers.hash"]?["data"]?["users"]?.arrayValue?.count == 1)
            #expect(byName["get.ListUsers"]?["data"]?["users"]?.arrayValue?.count == 2)
            #expect(byName["Broken"]?["errors"]?[0]?["message"]?.stringValue == "the broken field always fails")

            let miss = try await GraphQLPeers.runClients("miss", against: replayer.url)
            #expect(miss.first?.status == 404)
            #expect(miss.first?.cassette == "miss")
            let text = miss.first?.line ?? ""
            // The nearest is a recording of the same operation, id "1" or "2" alike.
            #expect(text.contains(#"GetUser: variables differ at $.id: recorded \""#) && text.contains(#"got \"3\""#), "\(text)")
            try await replayer.waitForLogLine(containing: "/graphql query GetUser")

            // A session's journal names each request's operation.
            let session = try await replayer.openSession("dev")
            _ = try await GraphQLPeers.runClients("replay", against: session.baseURL)
            let journal = try await session.requests()
            #expect(
                journal.map { $0["operation"] as? String ?? "-" } == [
                    "query GetUser", "query GetUser", "mutation RenameUser", "query ListUsers", "persisted GetUser", "persisted ListUsers",
                    "persisted GetUser", "query Broken",
                ], "\(journal)")
        }
    }

    @Test func aHashOnlyRequestHitsTheDocumentRecordedEarlierInTheSameRun() async throws {
        let steps = try await GraphQLPeers.withUpstream { base in
            try await withInProcessProxy(
                ["record", "--upstream", base.absoluteString, "--mode", "once", "--port", "0", "--db", store] + workspace.configArguments
            ) { recorder in
                try await GraphQLPeers.runClients("inrun", against: recorder.url)
            }
        }
        #expect(
            steps.map { "\($0.name) \($0.cassette ?? "-")" } == [
                "apq.GetUser.1.hash recorded", "apq.GetUser.1.document recorded", "again.hash.GetUser.1 hit", "again.get.hash.GetUser.1 hit",
            ])
        #expect(steps[0].body["errors"]?[0]?["message"]?.stringValue == "PersistedQueryNotFound")
        for step in steps.dropFirst(2) {
            #expect(step.body["data"]?["user"]?["name"]?.stringValue == "Ada", "\(step.name): the document's answer, not PersistedQueryNotFound: \(step.body)")
        }
    }

    @Test func operationsNamedOnlyByTheApolloHeaderReplayOfflineAndTheBodyWinsWhenTheyDisagree() async throws {
        let recorded = try await GraphQLPeers.withUpstream { base in
            try await withInProcessProxy(
                ["record", "--upstream", base.absoluteString, "--port", "0", "--db", store] + workspace.configArguments
            ) { recorder in
                let steps = try await GraphQLPeers.runClients("header-record", against: recorder.url)
                try await recorder.waitForLogLine(containing: "POST /graphql persisted GetUser")
                return steps
            }
        }
        #expect(
            recorded.map(\.name) == [
                "header.apq.GetUser.1.hash", "header.apq.GetUser.1.document", "header.apq.ListUsers.hash", "header.apq.ListUsers.document",
                "disagreeing.ListUsers",
            ], "\(recorded.map(\.line))")
        let stored = try await CassetteStore.open(path: store, access: .readOnly)
        let keys = try await stored.interactions(cassette: nil).map(\.key)
        try await stored.close()
        #expect(keys.filter { $0.contains(" gql:persisted:GetUser ") }.count == 1, "the header names the hash-only request: \(keys)")
        #expect(keys.filter { $0.contains(" gql:query:ListUsers ") }.count == 2, "the body's operationName beats the header: \(keys)")
        #expect(!keys.contains { $0.contains("anonymous_") }, "\(keys)")

        // The upstream is stopped: hash-only requests named by the header alone get the answers
        // recorded with their documents, by POST and by GET with only `extensions`.
        try await withInProcessProxy(["replay", "--port", "0", "--db", store] + workspace.configArguments) { replayer in
            let steps = try await GraphQLPeers.runClients("header-replay", against: replayer.url)
            #expect(
                steps.map(\.name) == ["header.apq.GetUser.1.hash", "header.get.hash.GetUser.1", "header.get.hash.ListUsers", "disagreeing.ListUsers"],
                "no retry with the document: \(steps.map(\.line))")
            for step in steps {
                #expect(step.status == 200 && step.cassette == "hit", "\(step.name): \(step.status) \(step.cassette ?? "-") \(step.body)")
            }
            #expect(steps[0].body["data"]?["user"]?["name"]?.stringValue == "Ada", "\(steps[0].body)")
            #expect(steps[1].body["data"]?["user"]?["name"]?.stringValue == "Ada", "\(steps[1].body)")
            #expect(steps[2].body["data"]?["users"]?.arrayValue?.count == 2, "\(steps[2].body)")
            #expect(steps[3].body["data"]?["users"]?.arrayValue?.count == 1, "\(steps[3].body)")
            try await replayer.waitForLogLine(containing: "GET /graphql persisted ListUsers")

            let miss = try await GraphQLPeers.runClients("header-miss", against: replayer.url)
            #expect(miss.first?.status == 404 && miss.first?.cassette == "miss")
            let text = miss.first?.line ?? ""
            #expect(text.contains("gql:persisted:GetUser") && text.contains(#"GetUser: variables differ at $.id: recorded \"1\", got \"3\""#), "\(text)")

            let session = try await replayer.openSession("dev")
            _ = try await GraphQLPeers.runClients("header-replay", against: session.baseURL)
            let journal = try await session.requests()
            #expect(
                journal.map { $0["operation"] as? String ?? "-" } == ["persisted GetUser", "persisted GetUser", "persisted ListUsers", "query ListUsers"],
                "\(journal)")
        }
    }

    @Test func openAPIDescribesEachOperationAsAnAlternativeOfTheGraphQLPathsOneOperation() async throws {
        _ = try await record()
        let openapi = try await workspace.run("openapi", "--db", store, "--out", "openapi.json")
        #expect(openapi.status == 0, "\(openapi)")
        #expect(openapi.stdout.contains("(1 path, 1 operation (holding 4 GraphQL operations) from 8 recordings of cassette dev)"), "\(openapi.stdout)")
        let validator = try await ExternalTool.openAPIValidator()
        let validated = try await ExternalTool.run(validator, [workspace.path("openapi.json")], cwd: workspace.directory)
        #expect(validated.status == 0, "openapi-spec-validator rejected the document: \(validated)")

        let document = try JSONValue(parsing: try Data(contentsOf: URL(fileURLWithPath: workspace.path("openapi.json"))))
        let post = try #require(document["paths"]?["/graphql"]?["post"])
        let labels = ["mutation RenameUser", "query Broken", "query GetUser", "query ListUsers"]
        #expect((post["x-graphql-operations"]?.arrayValue ?? []).map { "\($0["type"]?.stringValue ?? "") \($0["name"]?.stringValue ?? "")" } == labels)
        let request = post["requestBody"]?["content"]?["application/json"]
        let requests = request?["schema"]?["anyOf"]?.arrayValue ?? []
        #expect(requests.map { $0["x-graphql-operation"]?.stringValue ?? "-" } == labels, "\(post)")
        let getUser = try #require(requests.first { $0["title"] == "GetUser" })
        #expect(getUser["properties"]?["variables"]?["properties"]?["id"]?["type"] == "string", "\(getUser)")
        #expect(request?["examples"]?["GetUser"]?["value"]?["query"]?.stringValue?.hasPrefix("query GetUser($id:ID!)") == true, "\(post)")
        let answers = post["responses"]?["200"]?["content"]?["application/json"]?["schema"]?["anyOf"]?.arrayValue ?? []
        #expect(answers.map { $0["x-graphql-operation"]?.stringValue ?? "-" } == labels, "\(post)")
        let users = answers.first { $0["title"] == "ListUsers" }?["properties"]?["data"]?["properties"]?["users"]
        #expect(users?["type"] == "array", "\(answers)")
        #expect(document["paths"]?.objectValue?.members.count == 1, "hash-only and PersistedQueryNotFound recordings add nothing: \(document)")
    }

    struct User: Decodable, Sendable {
        let id: String
        let name: String
    }

    struct UserData: Decodable, Sendable {
        let user: User?
    }

    struct UsersData: Decodable, Sendable {
        let users: [User]
    }

    struct BrokenData: Decodable, Sendable {
        let broken: String?
    }

    @Test func listShowFixturesAndDriftGoOperationByOperation() async throws {
        _ = try await record()
        let list = try await workspace.run("list", "--db", store)
        #expect(list.status == 0, "\(list)")
        for operation in ["query GetUser", "query ListUsers", "mutation RenameUser", "query Broken", "persisted ListUsers"] {
            #expect(list.stdout.contains(operation), "\(operation) in \(list.stdout)")
        }
        let show = try await workspace.run("show", "--db", store, "GetUser")
        #expect(show.status == 0, "\(show)")
        #expect(show.stdout.components(separatedBy: "key:          POST /graphql gql:query:GetUser").count - 1 == 3, "\(show.stdout)")
        #expect(!show.stdout.contains("ListUsers"))

        let export = try await workspace.run("export", "--db", store, "--fixtures", "Fixtures")
        #expect(export.status == 0, "\(export)")
        let fixtures = try FileManager.default.contentsOfDirectory(atPath: workspace.path("Fixtures")).sorted()
        #expect(
            fixtures == [
                "mock_graphql_post_mutation_renameuser.json", "mock_graphql_post_query_broken.json", "mock_graphql_post_query_getuser.json",
                "mock_graphql_post_query_getuser_id_1.json", "mock_graphql_post_query_getuser_id_2.json", "mock_graphql_post_query_listusers.json",
                "mock_graphql_post_query_listusers_first_1.json", "mock_graphql_post_query_listusers_first_2.json", "registry.json",
            ], "one fixture per operation and per variables variant, none made of PersistedQueryNotFound: \(export.stdout)")
        #expect(export.stdout.contains("created  registry.json  (8 routes)"), "\(export.stdout)")
        #expect(
            export.stdout.contains(#"created  mock_graphql_post_query_getuser_id_1.json  (POST /graphql query GetUser {"id":"1"}, from 2 recordings)"#),
            "\(export.stdout)")

        // HAR entries say which operation each POST /graphql was.
        let har = try await workspace.run("export", "--db", store, "--har", "recordings.har")
        #expect(har.status == 0, "\(har)")
        let archive = try JSONValue(parsing: try Data(contentsOf: URL(fileURLWithPath: workspace.path("recordings.har"))))
        let comments = (archive["log"]?["entries"]?.arrayValue ?? []).compactMap { $0["comment"]?.stringValue }
        #expect(comments.count == 8)
        #expect(comments.first?.hasPrefix("query GetUser; cassette dev, key POST /graphql gql:query:GetUser body:sha256:") == true, "\(comments)")
        #expect(comments.contains { $0.hasPrefix("persisted ListUsers; ") } && comments.contains { $0.hasPrefix("mutation RenameUser; ") })

        // The registry routes each operation to its fixture: the mock client serves the GraphQL app.
        let mock = try MockAPIClient(fixturesDirectory: URL(fileURLWithPath: workspace.path("Fixtures")))
        let graphQL = URL(string: "https://api.example.com/graphql")!
        let user = try await mock.graphQL(
            url: graphQL, query: "query GetUser($id: ID!) { user(id: $id) { id name email } }", operationName: "GetUser", variables: ["id": "1"],
            dataType: UserData.self)
        #expect(user.user?.name == "Ada", "the variant of id 1: \(user)")
        let second = try await mock.graphQL(
            url: graphQL, query: "query GetUser($id: ID!) { user(id: $id) { id name email } }", operationName: "GetUser", variables: ["id": "2"],
            dataType: UserData.self)
        #expect(second.user?.name == "Grace", "the variant of id 2: \(second)")
        let other = try await mock.graphQL(
            url: graphQL, query: "query GetUser($id: ID!) { user(id: $id) { id name email } }", operationName: "GetUser", variables: ["id": "9"],
            dataType: UserData.self)
        #expect(other.user?.name.isEmpty == false, "variables never recorded: the operation's fixture \(other)")
        for first in [1, 2] {
            let users = try await mock.graphQL(
                url: graphQL, query: "query ListUsers($first: Int) { users(first: $first) { id name } }", variables: ["first": first],
                dataType: UsersData.self)
            #expect(users.users.count == first, "the variant of first \(first): \(users)")
        }
        await #expect(throws: GraphQLResponseError.self) {
            _ = try await mock.graphQL(url: graphQL, query: "query Broken { broken }", dataType: BrokenData.self)
        }
        // Exporting again changes nothing: the routes keep their fixtures' names.
        let again = try await workspace.run("export", "--db", store, "--fixtures", "Fixtures")
        #expect(again.status == 0 && again.stdout.contains("unchanged  registry.json  (8 routes)"), "\(again)")

        // One model per operation, named as Apollo names them; compiled, and every recorded `data`
        // and variables decoded with its type.
        let codegen = try await workspace.run("codegen", "swift", "--db", store, "--out", "Models")
        #expect(codegen.status == 0, "\(codegen)")
        let stored = try await CassetteStore.open(path: store, access: .readOnly)
        let interactions = try await stored.interactions(cassette: nil)
        try await stored.close()
        let models = SwiftModelGenerator(cassette: "dev").generate(RecordedOperations(interactions: interactions, splitsGraphQLOperations: true))
        let roots = Dictionary(uniqueKeysWithValues: models.roots.map { ("\($0.endpoint) \($0.role.rawValue)", $0.typeName) })
        #expect(roots["POST /graphql query GetUser response"] == "GetUserQueryData", "\(roots)")
        #expect(roots["POST /graphql query GetUser request"] == "GetUserQueryVariables", "\(roots)")
        #expect(roots["POST /graphql mutation RenameUser response"] == "RenameUserMutationData", "\(roots)")
        #expect(roots.keys.allSatisfy { !$0.contains("persisted") }, "\(roots)")
        for name in ["GetUserQuery.swift", "ListUsersQuery.swift", "RenameUserMutation.swift", "BrokenQuery.swift"] {
            #expect(FileManager.default.fileExists(atPath: workspace.path("Models/\(name)")), "\(name) in \(models.files.map(\.name))")
        }
        let compiled = try await GeneratedModelsCompiler.compileAndDecode(
            models: URL(fileURLWithPath: workspace.path("Models")), roots: models.roots, interactions: interactions, in: workspace.directory,
            extraSources: [
                "Use.swift": """
                func operationNamespaces() -> [String] {
                    let user: GetUserQuery.Data? = nil
                    let variables: RenameUserMutation.Variables? = nil
                    return [GetUserQuery.operationName, String(describing: user), String(describing: variables)]
                }
                """
            ])
        #expect(compiled.compile.status == 0, "\(compiled.compile)")
        #expect(compiled.run?.status == 0, "\(compiled.run.map(\.description) ?? "not run")")
        #expect(compiled.bodies >= 12, "every answer's data and every request's variables: \(compiled.bodies)")

        // The API changed for GetUser only: a user's email is null now.
        let drifted = workspace.path("drifted.db")
        _ = try await record(into: drifted, drifted: true)
        let diff = try await workspace.run("diff", "--db", drifted, "--fixtures", "Fixtures", "--format", "json")
        #expect(diff.status == 1, "\(diff)")
        let report = try JSONValue(parsing: diff.stdout)
        var findingsByEndpoint: [String: [String]] = [:]
        for entry in report["endpoints"]?.arrayValue ?? report["entries"]?.arrayValue ?? [] {
            let endpoint = entry["endpoint"]?.stringValue ?? "-"
            findingsByEndpoint[endpoint, default: []] += (entry["findings"]?.arrayValue ?? []).map {
                "\($0["severity"]?.stringValue ?? "") \($0["rule"]?.stringValue ?? "") \($0["path"]?.stringValue ?? "")"
            }
        }
        // The operation's fixture and each variant's see the change.
        #expect(findingsByEndpoint["POST /graphql query GetUser"] == Array(repeating: "error apiSendsNull $.user.email", count: 3), "\(diff.stdout)")
        #expect(findingsByEndpoint["POST /graphql query Broken"] == ["note graphQLErrors $.errors"], "\(diff.stdout)")
        for endpoint in ["POST /graphql query ListUsers", "POST /graphql mutation RenameUser"] {
            #expect(findingsByEndpoint[endpoint] == [], "no false alarm for \(endpoint): \(diff.stdout)")
        }
    }
}
