import Foundation
import TestSupport
import Testing
import WellPlateCore

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
            try await withProxy(
                ["record", "--upstream", base.absoluteString, "--port", "0", "--db", store ?? self.store], workingDirectory: workspace.directory.path
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
        try await withProxy(["replay", "--port", "0", "--db", store], workingDirectory: workspace.directory.path) { replayer in
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
        }
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
                "mock_graphql_post_query_listusers.json",
            ], "one fixture per operation, none made of PersistedQueryNotFound: \(export.stdout)")

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
        #expect(findingsByEndpoint["POST /graphql query GetUser"] == ["error apiSendsNull $.user.email"], "\(diff.stdout)")
        #expect(findingsByEndpoint["POST /graphql query Broken"] == ["note graphQLErrors $.errors"], "\(diff.stdout)")
        for endpoint in ["POST /graphql query ListUsers", "POST /graphql mutation RenameUser"] {
            #expect(findingsByEndpoint[endpoint] == [], "no false alarm for \(endpoint): \(diff.stdout)")
        }
    }
}
