import Crypto
import Foundation
import HTTPTypes
import Testing

@testable import WellPlateCore

@Suite("GraphQL keys")
struct GraphQLKeyTests {
    static let document = "query GetUser($id: ID!) { user(id: $id) { id name } }"
    static var hash: String { SHA256.hash(data: Array(document.utf8)).hex }

    private func post(_ json: String, path: String = "/graphql", rules: MatchingRules = .default) -> RequestKey {
        RequestKey(method: .post, target: path, headerFields: [.contentType: "application/json"], body: Data(json.utf8), rules: rules)
    }

    private func get(_ parameters: [(String, String)], rules: MatchingRules = .default) -> RequestKey {
        var components = URLComponents()
        components.path = "/graphql"
        components.queryItems = parameters.map { URLQueryItem(name: $0.0, value: $0.1) }
        // URLComponents leaves + and & in values alone; a client escapes them.
        let query = components.percentEncodedQuery!.replacingOccurrences(of: "+", with: "%2B")
        return RequestKey(method: .get, target: "/graphql?" + query, rules: rules)
    }

    private func body(
        _ document: String, variables: String = #"{"id":"1"}"#, name: String? = "GetUser", hash: String? = nil, sendsDocument: Bool = true
    )
        -> String
    {
        var members: [String] = []
        if sendsDocument { members.append(#""query":\#(String(decoding: try! JSONEncoder().encode(document), as: UTF8.self))"#) }
        if let name { members.append(#""operationName":"\#(name)""#) }
        members.append(#""variables":\#(variables)"#)
        if let hash { members.append(#""extensions":{"persistedQuery":{"version":1,"sha256Hash":"\#(hash)"}}"#) }
        return "{" + members.joined(separator: ",") + "}"
    }

    @Test("a GraphQL request is keyed by its operation: the key names it and hides the raw body")
    func keyNamesTheOperation() {
        let key = post(body(Self.document))
        #expect(key.rawValue.hasPrefix("POST /graphql gql:query:GetUser body:sha256:"))
        #expect(key.graphQL == GraphQLKeyPart(kind: "query", name: "GetUser"))
        #expect(RequestKey(rawValue: key.rawValue) == key)
        #expect(RequestKey(rawValue: key.rawValue)?.graphQL == key.graphQL)
    }

    @Test("reformatted documents, reordered variables and the APQ retry (document with hash) share a key")
    func sameOperationSameKey() {
        let key = post(body(Self.document, variables: #"{"id":"1","locale":"en"}"#))
        #expect(post(body("query GetUser( $id:ID! ){\n user(id:$id){ id, name } } # comment", variables: #"{"locale":"en","id":"1"}"#)) == key)
        #expect(post(body(Self.document, variables: #"{"locale":"en","id":"1"}"#, hash: Self.hash)) == key)
        #expect(post(body(Self.document, variables: #"{"id":"2","locale":"en"}"#)) != key)
    }

    @Test("GET (Apollo's GET form) and POST of one operation are the same key, other query parameters kept")
    func getAndPostAgree() {
        let posted = post(body(Self.document))
        let fetched = get([("query", Self.document), ("operationName", "GetUser"), ("variables", #"{"id":"1"}"#)])
        #expect(fetched == posted)
        let hashOnly = get([
            ("operationName", "GetUser"), ("variables", #"{"id":"1"}"#), ("extensions", #"{"persistedQuery":{"version":1,"sha256Hash":"\#(Self.hash)"}}"#),
        ])
        #expect(hashOnly == post(body(Self.document, hash: Self.hash, sendsDocument: false)))
        let tagged = RequestKey(method: .get, target: "/graphql?lang=en&query=%7Bme%7Bid%7D%7D")
        #expect(tagged.rawValue.hasPrefix("POST /graphql?lang=en gql:query:anonymous_"))
    }

    @Test("a hash-only request keys by its hash, and the document's recording knows that key")
    func persistedQueries() {
        let hashOnly = post(body(Self.document, hash: Self.hash, sendsDocument: false))
        #expect(hashOnly.rawValue.contains(" gql:persisted:GetUser "))
        let alias = RequestKey.graphQLHashOnly(
            method: .post, target: "/graphql", headerFields: [.contentType: "application/json"], body: Data(body(Self.document).utf8), rules: .default)
        #expect(alias == hashOnly)
    }

    @Test("X-APOLLO-OPERATION-NAME names an operation its body leaves unnamed; the body wins when both name it")
    func apolloOperationNameHeader() {
        func fields(_ name: String) -> HTTPFields { [.contentType: "application/json", GraphQLOperation.operationNameField: name] }
        func keyed(_ json: String, header name: String) -> RequestKey {
            RequestKey(method: .post, target: "/graphql", headerFields: fields(name), body: Data(json.utf8))
        }
        let hashOnly = keyed(body(Self.document, name: nil, hash: Self.hash, sendsDocument: false), header: "GetUser")
        #expect(hashOnly.graphQL == GraphQLKeyPart(kind: "persisted", name: "GetUser"))
        #expect(hashOnly == post(body(Self.document, hash: Self.hash, sendsDocument: false)), "as if the body had named it")
        let alias = RequestKey.graphQLHashOnly(
            method: .post, target: "/graphql", headerFields: fields("GetUser"), body: Data(body(Self.document, name: nil).utf8), rules: .default)
        #expect(alias == hashOnly, "the document's recording answers it")
        #expect(post(body(Self.document, name: nil, hash: Self.hash, sendsDocument: false)).graphQL?.name.hasPrefix("anonymous_") == true)

        var components = URLComponents()
        components.queryItems = [
            URLQueryItem(name: "variables", value: #"{"id":"1"}"#),
            URLQueryItem(name: "extensions", value: #"{"persistedQuery":{"version":1,"sha256Hash":"\#(Self.hash)"}}"#),
        ]
        let fetched = RequestKey(method: .get, target: "/graphql?" + components.percentEncodedQuery!, headerFields: fields("GetUser"))
        #expect(fetched == hashOnly, "a GET with only extensions, named by the header")

        #expect(keyed(body(Self.document), header: "ListUsers") == post(body(Self.document)), "operationName beats the header")
        #expect(keyed(body(Self.document, name: nil), header: "Other").graphQL?.name == "GetUser", "so does the document's own name")
        #expect(keyed(body("{ me { id } }", name: nil), header: "Me").graphQL == GraphQLKeyPart(kind: "query", name: "Me"))
        let twoOperations = "query A { a } mutation B { b }"
        #expect(keyed(body(twoOperations, name: nil), header: "B").graphQL == GraphQLKeyPart(kind: "mutation", name: "B"))
    }

    @Test("ignore rules reach variables by path, and plain names at any depth")
    func ignoredVariables() {
        let rules = MatchingRules(ignoredBodyFields: ["$.variables.input.clientMutationId", "requestId"])
        let mutation = "mutation Rename($input: RenameInput!) { rename(input: $input) { id } }"
        let first = post(body(mutation, variables: #"{"input":{"id":"1","clientMutationId":"a","requestId":"x"}}"#, name: "Rename"), rules: rules)
        let second = post(body(mutation, variables: #"{"input":{"id":"1","clientMutationId":"b","requestId":"y"}}"#, name: "Rename"), rules: rules)
        #expect(first == second)
        #expect(post(body(mutation, variables: #"{"input":{"id":"2","clientMutationId":"a"}}"#, name: "Rename"), rules: rules) != first)
    }

    @Test("names: operationName, else the document's operation, else a stable name from the document")
    func names() {
        #expect(post(body(Self.document, name: nil)).graphQL?.name == "GetUser")
        #expect(
            post(body("mutation { a }", name: nil)).graphQL == GraphQLKeyPart(kind: "mutation", name: post(body("mutation { a }", name: nil)).graphQL!.name))
        let anonymous = post(body("{ me { id } }", name: nil)).graphQL?.name ?? ""
        #expect(anonymous.hasPrefix("anonymous_") && anonymous.count == "anonymous_".count + 8)
        #expect(post(body("{ me { id } }", name: "my op")).graphQL?.name == "my_op")
    }

    @Test("a batch keys every operation in order")
    func batch() {
        let key = post("[\(body(Self.document)),\(body("query ListUsers { users { id } }", variables: "{}", name: "ListUsers"))]")
        #expect(key.graphQL == GraphQLKeyPart(kind: "batch", name: "GetUser+ListUsers"))
    }

    @Test("only configured paths, and only bodies carrying an operation, are GraphQL")
    func recognition() {
        #expect(post(body(Self.document), path: "/api/graphql").graphQL == nil)
        #expect(post(body(Self.document), path: "/api/graphql", rules: MatchingRules(graphQLPaths: ["/api/graphql"])).graphQL != nil)
        #expect(post(#"{"hello":"world"}"#).graphQL == nil)
        #expect(RequestKey(method: .get, target: "/graphql?x=1").graphQL == nil)
        #expect(post(body(Self.document), rules: MatchingRules(graphQLPaths: [String]())).graphQL == nil)
    }

    @Test("a miss against the same operation names it and the variable that differs")
    func missExplanation() {
        let recorded = post(body(Self.document, variables: #"{"id":1}"#))
        let other = post(body("query ListUsers { users { id } }", variables: "{}", name: "ListUsers"))
        let request = post(body(Self.document, variables: #"{"id":2}"#))
        let nearest = RequestKey.nearest(to: request, among: [other, recorded])
        #expect(nearest.first?.recorded == recorded)
        #expect(nearest.first?.items.map(\.description) == ["GetUser: variables differ at $.id: recorded 1, got 2"])
        #expect(nearest.last?.items.map(\.description) == ["operation query GetUser vs query ListUsers"])
    }

    @Test("matching rules keep their GraphQL paths through the stored form, and leave the default unwritten")
    func rulesCoding() throws {
        let custom = MatchingRules(graphQLPaths: ["/api/graphql"])
        #expect(try JSONDecoder().decode(MatchingRules.self, from: JSONEncoder().encode(custom)) == custom)
        let defaultText = String(decoding: try JSONEncoder().encode(MatchingRules.default), as: UTF8.self)
        #expect(!defaultText.contains("graphQLPaths"))
        #expect(try JSONDecoder().decode(MatchingRules.self, from: Data("{}".utf8)) == .default)
    }
}
