import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// The sample API's endpoints, exercised through the real binary over HTTP.
@Suite("Sample API endpoints")
struct SampleAPITests {
    // MARK: Health, users

    @Test func healthIsAFixedJSONDocument() async throws {
        try await withSampleAPI { base in
            let response = try await send(.get, base, "/api/health")
            #expect(response.statusCode == 200)
            #expect(response.headerFields[.contentType] == "application/json; charset=utf-8")
            #expect(response.text == #"{"status":"ok","timestamp":"2026-01-01T00:00:00Z","version":"1.0.0"}"#)
        }
    }

    @Test func usersListTheSeedWithSortedKeysAndExplicitNulls() async throws {
        try await withSampleAPI { base in
            let response = try await send(.get, base, "/api/users")
            #expect(response.statusCode == 200)
            let users = try #require(try JSONSerialization.jsonObject(with: response.body) as? [[String: Any]])
            #expect(users.map { $0["id"] as? Int } == [1, 2, 3])
            #expect(users.map { $0["name"] as? String } == ["Ada Lovelace", "Grace Hopper", "Alan Turing"])
            #expect(users[1]["avatarURL"] is NSNull)
            #expect(
                response.text.hasPrefix(
                    #"[{"avatarURL":"https://cdn.example.com/avatars/1.png","createdAt":"2026-01-02T09:00:00Z","email":"ada@example.com","id":1,"name":"Ada Lovelace","role":"admin"},"#
                ))
            let again = try await send(.get, base, "/api/users")
            #expect(again.body == response.body)
        }
    }

    @Test func usersPageWithLimitAndOffset() async throws {
        try await withSampleAPI { base in
            #expect(try await ids(send(.get, base, "/api/users?limit=1&offset=1")) == [2])
            #expect(try await ids(send(.get, base, "/api/users?offset=2")) == [3])
            #expect(try await ids(send(.get, base, "/api/users?offset=9")) == [])
            #expect(try await ids(send(.get, base, "/api/users?limit=0")) == [])
            for query in ["limit=abc", "limit=-1", "offset=1.5"] {
                let response = try await send(.get, base, "/api/users?\(query)")
                #expect(response.statusCode == 400, "\(query)")
                #expect(try error(response) == "bad_request")
                #expect(try message(response).contains(query.prefix { $0 != "=" }), "\(query)")
            }
        }
    }

    @Test(arguments: ["/api/users", "/api/nutrition/history"])
    func listRoutesAreGzippedWhenTheClientAcceptsIt(path: String) async throws {
        try await withSampleAPI { base in
            let response = try await send(.get, base, path, headers: [.acceptEncoding: "gzip"])
            #expect(response.statusCode == 200)
            #expect(response.decodedContentEncoding == "gzip")
            #expect(response.headerFields[.vary] == "Accept-Encoding")
            #expect(try JSONSerialization.jsonObject(with: response.body) is [Any])
        }
    }

    @Test func otherRoutesAndClientsThatDoNotAskAreNotCompressed() async throws {
        try await withSampleAPI { base in
            let health = try await send(.get, base, "/api/health", headers: [.acceptEncoding: "gzip"])
            #expect(health.decodedContentEncoding == nil)

            var configuration = CurlTransport.Configuration()
            configuration.decodeContent = false
            let plain = try await CurlTransport(configuration: configuration)
                .send(TransportRequest(method: .get, url: base.appending(pathAndQuery: "/api/users")))
            #expect(plain.headerFields[.contentEncoding] == nil)
            #expect(plain.headerFields[.contentLength] == String(plain.body.count))
            #expect(plain.body.first == UInt8(ascii: "["))
        }
    }

    @Test func oneUserAndItsErrors() async throws {
        try await withSampleAPI { base in
            let ada = try await send(.get, base, "/api/users/1")
            #expect(ada.statusCode == 200)
            #expect(ada.text.contains(#""email":"ada@example.com""#))

            let missing = try await send(.get, base, "/api/users/42")
            #expect(missing.statusCode == 404)
            #expect(missing.text == #"{"error":"not_found","message":"User 42 not found"}"#)

            let malformed = try await send(.get, base, "/api/users/abc")
            #expect(malformed.statusCode == 400)
            #expect(try error(malformed) == "bad_request")
            #expect(try message(malformed).contains("abc"))
        }
    }

    @Test func creatingUsersAssignsTheNextIDsAndALocation() async throws {
        try await withSampleAPI { base in
            let created = try await send(.post, base, "/api/users", body: #"{"name":"Katherine Johnson","email":"kj@example.com"}"#)
            #expect(created.statusCode == 201)
            #expect(created.headerFields[.location] == "/api/users/4")
            #expect(
                created.text
                    == #"{"avatarURL":null,"createdAt":"2026-02-01T00:00:00Z","email":"kj@example.com","id":4,"name":"Katherine Johnson","role":"member"}"#
            )
            let second = try await send(.post, base, "/api/users", body: #"{"name":"Dorothy Vaughan","email":"dv@example.com","role":"admin"}"#)
            #expect(second.headerFields[.location] == "/api/users/5")
            #expect(try object(second)["role"] as? String == "admin")
            #expect(try await send(.get, base, "/api/users/4").statusCode == 200)
            #expect(try await ids(send(.get, base, "/api/users")) == [1, 2, 3, 4, 5])
        }
    }

    @Test(arguments: [
        ("not json", "JSON"),
        ("[1]", "JSON object"),
        (#"{"email":"x@example.com"}"#, "\"name\""),
        (#"{"name":"X","email":""}"#, "\"email\""),
        (#"{"name":7,"email":"x@example.com"}"#, "\"name\""),
        (#"{"name":"X","email":"x@example.com","role":false}"#, "\"role\""),
    ])
    func creatingAUserNamesTheBadField(body: String, named: String) async throws {
        try await withSampleAPI { base in
            let response = try await send(.post, base, "/api/users", body: body)
            #expect(response.statusCode == 400)
            #expect(try error(response) == "bad_request")
            #expect(try message(response).contains(named))
        }
    }

    @Test func replacingPatchingAndDeletingAUser() async throws {
        try await withSampleAPI { base in
            let replaced = try await send(.put, base, "/api/users/2", body: #"{"name":"Grace B. Hopper","email":"gbh@example.com"}"#)
            #expect(replaced.statusCode == 200)
            #expect(try object(replaced)["name"] as? String == "Grace B. Hopper")
            #expect(try object(replaced)["role"] as? String == "member")

            let patched = try await send(.patch, base, "/api/users/2", body: #"{"role":"admin"}"#)
            #expect(try object(patched)["role"] as? String == "admin")
            #expect(try object(patched)["email"] as? String == "gbh@example.com")

            let incomplete = try await send(.put, base, "/api/users/2", body: #"{"name":"No Email"}"#)
            #expect(incomplete.statusCode == 400)
            #expect(try message(incomplete).contains("\"email\""))

            let deleted = try await send(.delete, base, "/api/users/2")
            #expect(deleted.statusCode == 204)
            #expect(deleted.body.isEmpty)
            #expect(try await send(.get, base, "/api/users/2").statusCode == 404)
            #expect(try await ids(send(.get, base, "/api/users")) == [1, 3])
        }
    }

    @Test(arguments: [HTTPMethod.put, .patch, .delete])
    func changingAnUnknownUserIs404(method: HTTPMethod) async throws {
        try await withSampleAPI { base in
            let response = try await send(method, base, "/api/users/99", body: #"{"name":"N","email":"n@example.com"}"#)
            #expect(response.statusCode == 404)
            #expect(try message(response) == "User 99 not found")
        }
    }

    // MARK: Nutrition, profile

    @Test func analyzeScalesThePer100GramTable() async throws {
        try await withSampleAPI { base in
            let chicken = try await send(.post, base, "/api/nutrition/analyze", body: #"{"food":"Chicken Breast","grams":150}"#)
            #expect(chicken.statusCode == 200)
            #expect(chicken.text == #"{"calories":248,"carbs":0.0,"fat":5.4,"fiber":0.0,"food":"chicken breast","grams":150,"protein":46.5}"#)

            let banana = try await object(send(.post, base, "/api/nutrition/analyze", body: #"{"food":"BANANA","grams":50.5}"#))
            #expect(banana["food"] as? String == "banana")
            #expect(banana["grams"] as? Double == 50.5)
            #expect(banana["calories"] as? Int == 45)
            #expect(banana["carbs"] as? Double == 11.5)
        }
    }

    @Test func unknownFoodsAre422AndListTheKnownOnes() async throws {
        try await withSampleAPI { base in
            let response = try await send(.post, base, "/api/nutrition/analyze", body: #"{"food":"pizza","grams":100}"#)
            #expect(response.statusCode == 422)
            #expect(try error(response) == "unknown_food")
            #expect(
                try message(response)
                    == #"No nutrition data for "pizza"; known foods: apple, banana, broccoli, chicken breast, egg, oats, rice, salmon"#
            )
        }
    }

    @Test(arguments: [
        #"{"food":"apple","grams":0}"#, #"{"food":"apple","grams":-5}"#, #"{"food":"apple","grams":"100"}"#, #"{"grams":100}"#, "{",
        #"{"food":"apple","grams":1e300}"#, #"{"food":"apple","grams":100001}"#,
    ])
    func analyzeRejectsBadBodies(body: String) async throws {
        try await withSampleAPI { base in
            let response = try await send(.post, base, "/api/nutrition/analyze", body: body)
            #expect(response.statusCode == 400)
            #expect(try error(response) == "bad_request")
        }
    }

    @Test func historyHasFiveFixedEntries() async throws {
        try await withSampleAPI { base in
            let response = try await send(.get, base, "/api/nutrition/history")
            let entries = try #require(try JSONSerialization.jsonObject(with: response.body) as? [[String: Any]])
            #expect(entries.map { $0["id"] as? Int } == [1, 2, 3, 4, 5])
            #expect(entries[0]["loggedAt"] as? String == "2026-01-05T07:45:00Z")
            #expect(Set(entries[0].keys) == ["calories", "food", "grams", "id", "loggedAt"])
            #expect(try await ids(send(.get, base, "/api/nutrition/history?limit=2")) == [1, 2])
            #expect(try await send(.get, base, "/api/nutrition/history?limit=x").statusCode == 400)
        }
    }

    @Test func meNeedsABearerToken() async throws {
        try await withSampleAPI { base in
            for authorization in [nil, "Basic YWRhOnB3", "Bearer ", "Bearer"] as [String?] {
                var headers = HTTPFields()
                headers[.authorization] = authorization
                let response = try await send(.get, base, "/api/me", headers: headers)
                #expect(response.statusCode == 401, "\(authorization ?? "no header")")
                #expect(response.headerFields[.wwwAuthenticate] == "Bearer")
                #expect(response.text == #"{"error":"unauthorized","message":"Send Authorization: Bearer <token>"}"#)
            }
            let expired = try await send(.get, base, "/api/me", headers: [.authorization: "Bearer expired"])
            #expect(expired.statusCode == 401)
            #expect(expired.headerFields[.wwwAuthenticate]?.hasPrefix("Bearer") == true)

            let me = try await send(.get, base, "/api/me", headers: [.authorization: "Bearer t0ken"])
            #expect(me.statusCode == 200)
            #expect(me.text == #"{"email":"ada@example.com","id":1,"name":"Ada Lovelace","plan":"pro"}"#)
        }
    }

    @Test func refreshTradesARefreshTokenForAnAccessTokenAndTheServerCountsWhatArrived() async throws {
        try await withSampleAPI { base in
            let json: HTTPFields = [.contentType: "application/json"]
            let fresh = try await send(.post, base, "/api/auth/refresh", headers: json, body: #"{"refresh_token":"rt_1"}"#)
            #expect(fresh.statusCode == 200)
            let token = try object(fresh)["access_token"] as? String
            #expect(token?.wholeMatch(of: /at_[0-9a-f]{32}/) != nil, "\(fresh.text)")
            #expect(try await send(.get, base, "/api/me", headers: [.authorization: "Bearer \(token ?? "")"]).statusCode == 200)

            let revoked = try await send(.post, base, "/api/auth/refresh", headers: json, body: #"{"refresh_token":"revoked"}"#)
            #expect(revoked.statusCode == 401)
            #expect(revoked.text == #"{"error":"refresh_token_revoked","message":"The refresh token was revoked; sign in again"}"#)
            let stale = try await send(.post, base, "/api/auth/refresh", headers: json, body: #"{"refresh_token":"stale"}"#)
            #expect(stale.text == #"{"access_token":"expired","expires_in":3600,"token_type":"Bearer"}"#)
            let missing = try await send(.post, base, "/api/auth/refresh", headers: json, body: "{}")
            #expect(missing.statusCode == 400)
            #expect(missing.text.contains(#"Field \"refresh_token\" is required"#))

            let patched = try await send(
                .patch, base, "/api/me", headers: [.authorization: "Bearer t0ken", .contentType: "application/json"], body: #"{"name":"Ada King"}"#)
            #expect(patched.text == #"{"email":"ada@example.com","id":1,"name":"Ada King","plan":"pro"}"#)
            #expect(try await send(.patch, base, "/api/me", headers: [.authorization: "Bearer expired"], body: #"{"name":"x"}"#).statusCode == 401)

            // The rejected refresh tokens count too: every refresh request that named one.
            let counts = try await send(.get, base, "/api/auth/counts")
            #expect(counts.text == #"{"profile_requests":3,"refreshes":3,"rejected":1}"#)
        }
    }

    // MARK: Flaky, slow, status

    @Test func flakyFailsTheFirstAttemptsOfEachKey() async throws {
        try await withSampleAPI { base in
            let first = try await send(.get, base, "/api/flaky?key=a&failures=2&retryAfter=7")
            #expect(first.statusCode == 503)
            #expect(first.headerFields[.retryAfter] == "7")
            #expect(first.text == #"{"error":"unavailable","message":"Attempt 1 of key a fails on purpose"}"#)
            // Any method counts towards the same key.
            let second = try await send(.post, base, "/api/flaky?key=a&failures=2", body: "{}")
            #expect(second.statusCode == 503)
            #expect(second.headerFields[.retryAfter] == nil)
            let third = try await send(.put, base, "/api/flaky?key=a&failures=2")
            #expect(third.statusCode == 200)
            #expect(third.text == #"{"attempts":3,"key":"a"}"#)

            #expect(try await send(.patch, base, "/api/flaky?key=b&failures=0").statusCode == 200)
            #expect(try await send(.delete, base, "/api/flaky?key=c&status=429").statusCode == 429)
            #expect(try await send(.get, base, "/api/flaky").statusCode == 503)
            #expect(try await send(.get, base, "/api/flaky").text == #"{"attempts":2,"key":"default"}"#)
        }
    }

    @Test func flakyCountReportsAttemptsWithoutCountingItself() async throws {
        try await withSampleAPI { base in
            #expect(try await send(.get, base, "/api/flaky/count?key=k").text == #"{"attempts":0,"key":"k"}"#)
            _ = try await send(.get, base, "/api/flaky?key=k&failures=5")
            _ = try await send(.get, base, "/api/flaky?key=k&failures=5")
            #expect(try await send(.get, base, "/api/flaky/count?key=k").text == #"{"attempts":2,"key":"k"}"#)
            #expect(try await send(.get, base, "/api/flaky/count?key=k").text == #"{"attempts":2,"key":"k"}"#)
        }
    }

    @Test(arguments: ["failures=x", "status=abc", "status=100", "status=600", "retryAfter=-1"])
    func flakyRejectsBadParametersWithoutCounting(query: String) async throws {
        try await withSampleAPI { base in
            let response = try await send(.get, base, "/api/flaky?key=bad&\(query)")
            #expect(response.statusCode == 400)
            #expect(try error(response) == "bad_request")
            #expect(try await send(.get, base, "/api/flaky/count?key=bad").text == #"{"attempts":0,"key":"bad"}"#)
        }
    }

    @Test func slowWaitsWithoutHoldingUpOtherRequests() async throws {
        try await withSampleAPI { base in
            let slowDone = OneShot<Void>()
            let slow = Task {
                defer { slowDone.fulfil(()) }
                return try await send(.get, base, "/api/slow?ms=6000")
            }
            let health = try await send(.get, base, "/api/health")
            #expect(health.statusCode == 200)
            // An order, not a wall-clock bound: health is answered while the slow one still waits.
            #expect(slowDone.value == nil, "the health check waited for the slow request (took \(health.duration))")
            let delayed = try await slow.value
            #expect(delayed.text == #"{"delayedMs":6000}"#)
            #expect(delayed.duration >= .milliseconds(6000))
            #expect(try await send(.get, base, "/api/slow?ms=60001").statusCode == 400)
        }
    }

    @Test(arguments: [
        (200, "ok"), (201, "created"), (400, "bad_request"), (404, "not_found"), (418, "i_m_a_teapot"),
        (500, "internal_server_error"), (502, "bad_gateway"), (599, "status_599"),
    ])
    func statusAnswersWithTheAskedStatus(code: Int, slug: String) async throws {
        try await withSampleAPI { base in
            let response = try await send(.get, base, "/api/status/\(code)")
            #expect(response.statusCode == code)
            #expect(response.text == #"{"error":"\#(slug)","message":"Sample status \#(code)"}"#)
            #expect(response.headerFields[.retryAfter] == nil)
        }
    }

    @Test func statusHandlesBodilessAndRetryableCodes() async throws {
        try await withSampleAPI { base in
            for code in [204, 304] {
                let response = try await send(.get, base, "/api/status/\(code)")
                #expect(response.statusCode == code)
                #expect(response.body.isEmpty)
            }
            for code in [429, 503] {
                let response = try await send(.get, base, "/api/status/\(code)")
                #expect(response.statusCode == code)
                #expect(response.headerFields[.retryAfter] == "1")
            }
            for code in ["100", "600", "abc"] {
                #expect(try await send(.get, base, "/api/status/\(code)").statusCode == 400, "\(code)")
            }
        }
    }

    // MARK: Binary, echo, redirect

    @Test func binaryIsTheCountingPattern() async throws {
        try await withSampleAPI { base in
            let response = try await send(.get, base, "/api/binary?size=1000")
            #expect(response.statusCode == 200)
            #expect(response.headerFields[.contentType] == "application/octet-stream")
            #expect(response.body.count == 1000)
            #expect(response.body.enumerated().allSatisfy { $0.element == UInt8($0.offset % 256) })
            #expect(try await send(.get, base, "/api/binary").body.count == 1024)
            #expect(try await send(.get, base, "/api/binary?size=0").body.isEmpty)
            #expect(try await send(.get, base, "/api/binary?size=16777217").statusCode == 400)
        }
    }

    @Test func echoReflectsMethodPathQueryHeadersAndBody() async throws {
        try await withSampleAPI { base in
            let headers: HTTPFields = [HTTPField.Name("X-Probe")!: "one", .contentType: "text/plain"]
            let response = try await send(.post, base, "/api/echo?b=x%20y&a=1&b=2", headers: headers, body: "héllo")
            #expect(response.statusCode == 200)
            let echo = try object(response)
            #expect(echo["method"] as? String == "POST")
            #expect(echo["path"] as? String == "/api/echo")
            #expect(echo["query"] as? [[String]] == [["b", "x y"], ["a", "1"], ["b", "2"]])
            let echoedHeaders = try #require(echo["headers"] as? [[String]])
            #expect(echoedHeaders.contains(["X-Probe", "one"]))
            #expect(echo["body"] as? String == "héllo")
            #expect(echo["bodyBase64"] as? String == Data("héllo".utf8).base64EncodedString())
        }
    }

    @Test func echoGivesNullTextForEmptyAndNonUTF8Bodies() async throws {
        try await withSampleAPI { base in
            let empty = try object(await send(.get, base, "/api/echo"))
            #expect(empty["body"] is NSNull)
            #expect(empty["bodyBase64"] is NSNull)

            let binary = try await CurlTransport.shared.send(
                TransportRequest(method: .put, url: base.appending(pathAndQuery: "/api/echo"), body: Data([0xFF, 0xFE, 0x00]))
            )
            let echo = try object(binary)
            #expect(echo["body"] is NSNull)
            #expect(echo["bodyBase64"] as? String == "//4A")
        }
    }

    @Test func redirectPointsAtHealth() async throws {
        try await withSampleAPI { base in
            let response = try await send(.get, base, "/api/redirect")
            #expect(response.statusCode == 302)
            #expect(response.headerFields[.location] == "/api/health")
            #expect(response.text == "{}")
        }
    }

    // MARK: Routing

    @Test func headAnswersLikeGetWithoutTheBody() async throws {
        try await withSampleAPI { base in
            let get = try await send(.get, base, "/api/users/1")
            let head = try await send(.head, base, "/api/users/1")
            #expect(head.statusCode == 200)
            #expect(head.body.isEmpty)
            #expect(head.headerFields[.contentLength] == String(get.body.count))
            #expect(head.headerFields[.contentType] == get.headerFields[.contentType])
            #expect(try await send(.head, base, "/api/users/42").statusCode == 404)
        }
    }

    @Test func optionsListsTheAllowedMethods() async throws {
        try await withSampleAPI { base in
            let users = try await send(.options, base, "/api/users")
            #expect(users.statusCode == 204)
            #expect(users.headerFields[.allow] == "GET, HEAD, POST, OPTIONS")
            let user = try await send(.options, base, "/api/users/1")
            #expect(user.headerFields[.allow] == "GET, HEAD, PUT, PATCH, DELETE, OPTIONS")
            let unknown = try await send(.options, base, "/nowhere")
            #expect(unknown.statusCode == 204)
            #expect(unknown.headerFields[.allow] == "OPTIONS")
        }
    }

    @Test func unknownPathsAre404AndWrongMethods405() async throws {
        try await withSampleAPI { base in
            let unknown = try await send(.get, base, "/x")
            #expect(unknown.statusCode == 404)
            #expect(unknown.text == #"{"error":"not_found","message":"No route for GET /x"}"#)

            let wrongMethod = try await send(.delete, base, "/api/health")
            #expect(wrongMethod.statusCode == 405)
            #expect(wrongMethod.headerFields[.allow] == "GET, HEAD, OPTIONS")
            #expect(try error(wrongMethod) == "method_not_allowed")
        }
    }

    @Test func bodiesUpTo8MiBAreAcceptedAndLargerOnes413() async throws {
        try await withSampleAPI { base in
            let limit = 8 * 1024 * 1024
            let json = #"{"food":"apple","grams":100}"#
            let atLimit = Data(json.utf8) + Data(repeating: UInt8(ascii: " "), count: limit - json.utf8.count)
            let accepted = try await CurlTransport.shared.send(
                TransportRequest(method: .post, url: base.appending(pathAndQuery: "/api/nutrition/analyze"), body: atLimit)
            )
            #expect(accepted.statusCode == 200)

            let tooLarge = try await CurlTransport.shared.send(
                TransportRequest(method: .post, url: base.appending(pathAndQuery: "/api/nutrition/analyze"), body: atLimit + Data(" ".utf8))
            )
            #expect(tooLarge.statusCode == 413)
            #expect(try error(tooLarge) == "payload_too_large")
            #expect(try await send(.get, base, "/api/health").statusCode == 200)
        }
    }
}

// MARK: Helpers

private func send(
    _ method: HTTPMethod,
    _ base: URL,
    _ pathAndQuery: String,
    headers: HTTPFields = [:],
    body: String? = nil
) async throws -> TransportResponse {
    try await CurlTransport.shared.send(
        TransportRequest(method: method, url: base.appending(pathAndQuery: pathAndQuery), headerFields: headers, body: body.map { Data($0.utf8) })
    )
}

private func object(_ response: TransportResponse) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any], "not a JSON object: \(response.text)")
}

private func error(_ response: TransportResponse) throws -> String? {
    try object(response)["error"] as? String
}

private func message(_ response: TransportResponse) throws -> String {
    try object(response)["message"] as? String ?? ""
}

private func ids(_ response: TransportResponse) throws -> [Int] {
    let array = try #require(try JSONSerialization.jsonObject(with: response.body) as? [[String: Any]], "not a JSON array: \(response.text)")
    return array.compactMap { $0["id"] as? Int }
}

extension TransportResponse {
    /// The body as UTF-8 text.
    fileprivate var text: String { String(decoding: body, as: UTF8.self) }
}
