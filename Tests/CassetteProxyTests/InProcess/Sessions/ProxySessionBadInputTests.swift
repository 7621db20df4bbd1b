import CassetteProxy
import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// Every bad request to `/__cassette/sessions` gets a JSON error with a 4xx status that says what
/// to do, and the proxy goes on serving.
@Suite("Proxy sessions: bad input")
final class ProxySessionBadInputTests {
    let workspace: CLIWorkspace
    var store: String { workspace.storePath }

    init() throws {
        workspace = try CLIWorkspace()
    }

    struct Case: Sendable, CustomStringConvertible {
        let method: HTTPMethod
        let target: String
        let body: String?
        let status: Int
        let code: String
        /// A fragment of the message: what to do.
        let advice: String

        var description: String { "\(method.rawValue) \(target) \(body ?? "")" }
    }

    static let cases: [Case] = [
        Case(method: .post, target: "/__cassette/sessions", body: nil, status: 400, code: "bad_request", advice: #"{"cassette": "login""#),
        Case(method: .post, target: "/__cassette/sessions", body: #"{"cassette": "dev","#, status: 400, code: "malformed_json", advice: "not JSON"),
        Case(method: .post, target: "/__cassette/sessions", body: #"["dev"]"#, status: 400, code: "bad_request", advice: "must be a JSON object"),
        Case(method: .post, target: "/__cassette/sessions", body: #"{"mode": "none"}"#, status: 400, code: "bad_request", advice: #"needs "cassette""#),
        Case(method: .post, target: "/__cassette/sessions", body: #"{"cassette": ""}"#, status: 400, code: "bad_request", advice: "non-empty string"),
        Case(method: .post, target: "/__cassette/sessions", body: #"{"cassette": 7}"#, status: 400, code: "bad_request", advice: "non-empty string"),
        Case(
            method: .post, target: "/__cassette/sessions", body: #"{"cassette": "dev", "mode": "replay"}"#, status: 400, code: "unknown_mode",
            advice: "use none, once, missing or all"),
        Case(
            method: .post, target: "/__cassette/sessions", body: #"{"cassette": "dev", "mode": 1}"#, status: 400, code: "unknown_mode",
            advice: "must be a string"),
        Case(
            method: .post, target: "/__cassette/sessions", body: #"{"cassette": "dev", "mdoe": "none"}"#, status: 400, code: "bad_request",
            advice: #"unknown field "mdoe""#),
        Case(
            method: .post, target: "/__cassette/sessions", body: #"{"cassette": "nightly", "mode": "none"}"#, status: 404, code: "unknown_cassette",
            advice: "cassettes with recordings: dev"),
        Case(method: .post, target: "/__cassette/sessions?x=1", body: #"{"cassette": "dev"}"#, status: 400, code: "unknown_parameter", advice: "takes none"),
        Case(method: .put, target: "/__cassette/sessions", body: nil, status: 405, code: "method_not_allowed", advice: "use GET (list) or POST (open)"),
        Case(method: .get, target: "/__cassette/sessions/feedface0000", body: nil, status: 404, code: "unknown_session", advice: "POST /__cassette/sessions"),
        Case(method: .delete, target: "/__cassette/sessions/feedface0000", body: nil, status: 404, code: "unknown_session", advice: "GET /__cassette/sessions"),
        Case(method: .get, target: "/__cassette/sessions/feedface0000/requests", body: nil, status: 404, code: "unknown_session", advice: "never existed"),
        Case(method: .post, target: "/__cassette/sessions/feedface0000/reset", body: nil, status: 404, code: "unknown_session", advice: "never existed"),
        Case(method: .get, target: "/__cassette/sessions/feedface0000/replay", body: nil, status: 404, code: "not_found", advice: "/ID/requests"),
        Case(method: .get, target: "/__cassette/sessions/a/b/c", body: nil, status: 404, code: "not_found", advice: "/ID/reset"),
    ]

    @Test func everyBadRequestGetsAJSONErrorAndTheProxyGoesOn() async throws {
        try await workspace.record([Recordings.make(.get, "/api/users")])
        try await withInProcessReplayer(store: store) { proxy async throws in
            for badCase in Self.cases {
                let response = try await proxy.send(
                    badCase.method, badCase.target, headers: [.contentType: "application/json"], body: badCase.body.map { Data($0.utf8) })
                #expect(response.statusCode == badCase.status, "\(badCase): \(response.bodyText)")
                #expect(response.headerFields[.contentType] == "application/json; charset=utf-8", "\(badCase)")
                let error = try response.jsonObject()
                #expect(error["error"] as? String == badCase.code, "\(badCase): \(response.bodyText)")
                #expect((error["message"] as? String)?.contains(badCase.advice) == true, "\(badCase): \(response.bodyText)")
            }
            #expect(try await proxy.get("/api/users").statusCode == 200)
            #expect(try await proxy.liveSessions().isEmpty)
        }
    }

    /// The checks that need a live session: a bad method on its endpoints and bad query parameters.
    @Test func aLiveSessionsEndpointsRefuseBadMethodsAndParameters() async throws {
        try await workspace.record([Recordings.make(.get, "/api/users")])
        try await withInProcessReplayer(store: store) { proxy async throws in
            let session = try await proxy.openSession("dev")
            let base = "/__cassette/sessions/\(session.id)"
            let refused: [(HTTPMethod, String, Int, String, String)] = [
                (.post, base, 405, "method_not_allowed", "use GET (inspect) or DELETE (end)"),
                (.post, base + "/requests", 405, "method_not_allowed", "use GET"),
                (.get, base + "/reset", 405, "method_not_allowed", "use POST"),
                (.get, base + "/requests?methd=GET", 400, "unknown_parameter", "use host, method and path"),
                (.delete, base + "?strict=maybe", 400, "bad_parameter", "strict=true or strict=false"),
                (.delete, base + "?force=true", 400, "unknown_parameter", "use strict"),
            ]
            for (method, target, status, code, advice) in refused {
                let response = try await proxy.send(method, target)
                #expect(response.statusCode == status, "\(method) \(target): \(response.bodyText)")
                let error = try response.jsonObject()
                #expect(error["error"] as? String == code, "\(method) \(target)")
                #expect((error["message"] as? String)?.contains(advice) == true, "\(method) \(target): \(response.bodyText)")
            }
            // A 405 names the methods the endpoint takes, as the proxy's other endpoints do.
            let allowed: [(HTTPMethod, String, String)] = [
                (.put, "/__cassette/sessions", "GET, HEAD, POST"), (.post, base, "GET, HEAD, DELETE"), (.post, base + "/requests", "GET, HEAD"),
                (.get, base + "/reset", "POST"), (.post, "/__cassette/health", "GET, HEAD"),
            ]
            for (method, target, allow) in allowed {
                let response = try await proxy.send(method, target)
                #expect(response.statusCode == 405, "\(method) \(target)")
                #expect(response.headerFields[.allow] == allow, "\(method) \(target)")
            }
            // None of it ended the session.
            #expect(try await session.get("/api/users").statusCode == 200)
            #expect(try await session.end().statusCode == 200)
        }
    }
}
