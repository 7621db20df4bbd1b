import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import CassetteTools
@testable import WellPlateCore
@testable import WellPlateNetworking

@Suite("Live drift check: the requests it sends")
struct LiveDriftCheckTests {
    @Test("paths move from the recorded upstream's base onto the live one; redacted headers stay home")
    func requestRewriting() throws {
        var recorded = Recordings.make(.get, "/base/api/users/1?x=1", requestHeaders: [.authorization: "REDACTED", .accept: "application/json"])
        recorded.url = "http://recorded.example/base/api/users/1?x=1"
        let check = LiveDriftCheck(
            upstream: URL(string: "https://live.example/v2/")!, recordedUpstream: URL(string: "http://recorded.example/base"),
            headers: [.authorization: "Bearer live"]
        )
        let request = try #require(check.request(for: recorded))
        #expect(request.url.absoluteString == "https://live.example/v2/api/users/1?x=1")
        #expect(request.headerFields[.authorization] == "Bearer live")
        #expect(request.headerFields[.accept] == "application/json")
        #expect(request.headerFields[values: .authorization].count == 1)
    }

    @Test("one request per key, the most recent recording; only the chosen methods")
    func selection() {
        var older = Recordings.make(.get, "/api/users/1", body: Recordings.json(#"{"v":1}"#))
        older.recordedAt = Date(timeIntervalSince1970: 1)
        let newer = Recordings.make(.get, "/api/users/1", body: Recordings.json(#"{"v":2}"#))
        let post = Recordings.make(.post, "/api/users", requestBody: Recordings.json("{}"))
        let check = LiveDriftCheck(upstream: URL(string: "http://live.example")!)
        let requests = check.requests(for: [older, newer, post])
        #expect(requests.count == 1)
        #expect(requests.first?.0.responseBody == newer.responseBody)
        var widened = check
        widened.methods = [.get, .post]
        #expect(widened.requests(for: [older, newer, post]).count == 2)
    }
}
