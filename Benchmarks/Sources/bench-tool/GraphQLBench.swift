import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

/// Benchmarks/graphql.sh: a GraphQL app's replay against REST's, the same answers in both.
///
/// One store, three cassettes of `count` recordings each, answering the same bodies (JSON lists of
/// 200 B and 2 KB, alternately):
/// - `graphql`: POST /graphql, ten operations, ~1 KB bodies (`operationName`, a document of many
///   fields, variables), one recording per operation and variables;
/// - `rest-post`: POST /api/opN/search with a JSON body of the same size (keyed by its canonical JSON);
/// - `rest-get`: GET /api/opN/ID (keyed by method and target alone, cached per event loop).
/// Beside the store, `DB.graphql`, `DB.rest-post` and `DB.rest-get` list the requests for
/// `Benchmarks/requests.lua` (method, path and body, tab-separated).
enum GraphQLBench {
    static let operationCount = 10

    /// A document of about 800 bytes: nested selections, arguments, a fragment, as apps write them.
    static func document(_ operation: Int) -> String {
        let fields = (0..<24).map { "field\($0)_\(operation)" }.joined(separator: "\n      ")
        return """
            query Op\(operation)($id: ID!, $first: Int = 10, $filter: ItemFilter) {
              # operation \(operation) of the benchmark
              items(id: $id, first: $first, filter: $filter) {
                id
                name
                ...ItemParts
                tags { id label }
              }
            }
            fragment ItemParts on Item {
              price
              createdAt
              \(fields)
            }
            """
    }

    static func variables(_ operation: Int, _ variant: Int) -> JSONValue {
        [
            "id": .string("item-\(variant)"), "first": .integer(Int64(10 + operation)),
            "filter": ["tags": ["a", "b", .string("op\(operation)")], "active": .bool(variant % 2 == 0), "minPrice": .number(1.5)],
        ]
    }

    static func graphQLBody(_ operation: Int, _ variant: Int) -> Data {
        let body: JSONValue = ["operationName": .string("Op\(operation)"), "query": .string(document(operation)), "variables": variables(operation, variant)]
        return body.jsonData()
    }

    /// A JSON body the size of the GraphQL one, for the same operation and variant.
    static func restBody(_ operation: Int, _ variant: Int, size: Int) -> Data {
        var object: JSONObject = ["search": variables(operation, variant)]
        let base = JSONValue.object(object).jsonData().count
        object["fields"] = .array((0..<max(1, (size - base) / 14)).map { .string("field\($0)_\(operation)") })
        return JSONValue.object(object).jsonData()
    }

    static func make(path: String, count: Int) async throws {
        try? FileManager.default.removeItem(atPath: path)
        let store = try await CassetteStore.open(path: path, access: .readWrite)
        let answers = [StoreGenerator.body(bytes: 200, seed: 1), StoreGenerator.body(bytes: 2_000, seed: 2)]
        var responseHeaders = HTTPFields()
        responseHeaders[.contentType] = "application/json; charset=utf-8"
        var requests: [String: [String]] = [:]
        var graphQLBytes = 0
        for cassette in ["graphql", "rest-post", "rest-get"] {
            try await store.saveCassette(CassetteInfo(name: cassette, upstream: "http://127.0.0.1"))
            var batch: [Interaction] = []
            for index in 0..<count {
                let operation = index % operationCount, variant = index / operationCount
                let answer = answers[index % answers.count]
                var headers = responseHeaders
                headers[.contentLength] = String(answer.count)
                let graphQL = graphQLBody(operation, variant)
                let (method, target, body): (WellPlateCore.HTTPMethod, String, Data?) =
                    switch cassette {
                    case "graphql": (.post, "/graphql", graphQL)
                    case "rest-post": (.post, "/api/op\(operation)/search", restBody(operation, variant, size: graphQL.count))
                    default: (.get, "/api/op\(operation)/\(variant)", nil)
                    }
                if cassette == "graphql" { graphQLBytes += graphQL.count }
                var requestHeaders = HTTPFields()
                if body != nil { requestHeaders[.contentType] = "application/json" }
                let key = RequestKey(method: method, target: target, headerFields: requestHeaders, body: body)
                batch.append(
                    Interaction(
                        cassette: cassette, method: method, url: "http://127.0.0.1" + target, key: key.rawValue, requestHeaders: requestHeaders,
                        requestBody: body, statusCode: 200, responseHeaders: headers, responseBody: answer,
                        recordedAt: Date(timeIntervalSince1970: 1_780_000_000 + Double(index)), duration: .milliseconds(3)))
                requests[cassette, default: []].append("\(method.rawValue)\t\(target)\t\(body.map { String(decoding: $0, as: UTF8.self) } ?? "")")
            }
            try await store.record(batch: batch)
        }
        try await store.close()
        for (cassette, lines) in requests {
            try (lines.joined(separator: "\n") + "\n").write(toFile: "\(path).\(cassette)", atomically: true, encoding: .utf8)
        }
        Measure.printJSON(["interactions": count * 3, "graphQLBodyBytes": graphQLBytes / max(count, 1)])
    }

    /// Keys per second of the GraphQL bodies (lexing, normalizing, canonical variables) and of the
    /// same-sized JSON bodies (canonical JSON), as the proxy keys them: through the session's keyer.
    static func keying(path: String) async throws {
        let store = try await CassetteStore.open(path: path, access: .readOnly)
        var rates: [String: Double] = [:]
        for cassette in ["graphql", "rest-post"] {
            let session = try await CassetteSession.open(store: store, options: .init(cassette: cassette, mode: .replayOnly))
            let requests = try await store.interactions(cassette: cassette).map {
                ($0.method, String($0.url.dropFirst("http://127.0.0.1".count)), $0.requestBody)
            }
            let keyer = session.keyer
            // Every key must be the recorded one, or the benchmark measures a miss.
            for (method, target, body) in requests {
                precondition(session.index.contains(keyer.key(method: method, target: target, contentType: "application/json", body: body).rawValue))
            }
            var best = 0.0
            for _ in 0..<5 {
                var keys = 0
                let seconds = Measure.seconds {
                    while keys < 20_000 {
                        for (method, target, body) in requests {
                            _ = keyer.key(method: method, target: target, contentType: "application/json", body: body)
                            keys += 1
                        }
                    }
                }
                best = max(best, Double(keys) / seconds)
            }
            rates[cassette] = best
        }
        try await store.close()
        let graphQL = rates["graphql"] ?? 0, json = rates["rest-post"] ?? 1
        Measure.printJSON([
            "graphQLKeysPerSecond": graphQL.rounded(), "jsonKeysPerSecond": json.rounded(),
            "graphQLCostOverJSON": ((json / graphQL) * 100).rounded() / 100,
        ])
    }
}
