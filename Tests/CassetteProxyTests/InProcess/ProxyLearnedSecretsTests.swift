#if canImport(CCurl)
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// Secrets first seen in an answer: the sample API's `POST /api/session` sets a session cookie and
/// returns `access_token` and `refresh_token`; the client then carries those values in places no
/// rule names (a path segment, a query parameter, an ordinary header, a JSON field). None of them
/// may reach the store's files or any printed line, and the same requests must replay.
@Suite("Proxy: secrets learned from responses")
final class ProxyLearnedSecretsTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("learned.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    struct Credentials {
        var access: String
        var refresh: String
        var session: String

        var values: [String] { [access, refresh, session] }
    }

    static func percent(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }

    /// The requests a client makes with credentials it was given, none in a secret place.
    static func requests(_ credentials: Credentials) -> [(HTTPMethod, String, HTTPFields, Data?)] {
        [
            (.get, "/api/echo/\(credentials.access)/details", [:], nil),
            (.get, "/api/echo?continue=\(percent(credentials.refresh))&marker=visible-query", [:], nil),
            (.get, "/api/echo?kind=header", [HTTPField.Name("X-Session-Id")!: credentials.session], nil),
            (
                .post, "/api/echo?kind=json", [.contentType: "application/json"],
                Data(#"{"carry": "\#(credentials.refresh)", "plain": "visible-body"}"#.utf8)
            ),
            (.get, "/api/me", [.authorization: "Bearer \(credentials.access)"], nil),
        ]
    }

    func credentials(from response: TransportResponse) throws -> Credentials {
        let json = try response.jsonObject()
        let cookie = try #require(response.headerFields[.setCookie])
        let session = try #require(cookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last)
        return Credentials(
            access: try #require(json["access_token"] as? String), refresh: try #require(json["refresh_token"] as? String), session: String(session))
    }

    func forms(of credentials: Credentials) -> [String] {
        credentials.values.flatMap { [$0, Self.percent($0)] }
    }

    @Test func valuesAServerHandsOutNeverReachTheStoreOrTheLogAndStillReplay() async throws {
        var handedOut: Credentials?
        try await withSampleAPI { api async throws in
            try await withInProcessRecorder(upstream: api, store: store) { recorder async throws in
                let login = try await recorder.send(.post, "/api/session")
                #expect(login.statusCode == 201)
                let given = try credentials(from: login)
                handedOut = given
                for (method, target, headers, body) in Self.requests(given) {
                    let response = try await recorder.send(method, target, headers: headers, body: body)
                    #expect(response.cassetteSource == "recorded", "\(target)")
                    // The path-segment request has no route: its 404 quotes the path, a secret echoed.
                    #expect(response.statusCode == (target.hasSuffix("/details") ? 404 : 200), "\(target): \(response.bodyText)")
                }
                try await recorder.waitForLogLine(containing: "/api/me")
                for form in forms(of: given) {
                    #expect(try StoreFiles.files(at: store, containing: form) == [], "\(form) in the store while recording")
                }
                #expect(try !StoreFiles.files(at: store, containing: "visible-body").isEmpty, "the search must find a harmless value")
                await recorder.stop()
                for form in forms(of: given) {
                    #expect(!recorder.standardOutput.contains(form), "\(form) printed")
                    #expect(!recorder.standardError.contains(form), "\(form) printed")
                }
                #expect(recorder.standardOutput.contains("/api/echo/REDACTED/details"))
            }
        }
        let given = try #require(handedOut)
        for form in forms(of: given) {
            #expect(try StoreFiles.files(at: store, containing: form) == [], "\(form) in the store")
        }
        let stored = try await StoreFiles.interactions(at: store)
        let header = try #require(stored.first { $0.url.contains("kind=header") })
        #expect(header.requestHeaders[HTTPField.Name("X-Session-Id")!] == "REDACTED")
        let json = try #require(stored.first { $0.url.contains("kind=json") })
        #expect(String(decoding: json.requestBody ?? Data(), as: UTF8.self) == #"{"carry": "REDACTED", "plain": "visible-body"}"#)
        #expect(stored.contains { $0.url.hasSuffix("/api/echo?continue=REDACTED&marker=visible-query") })

        // A client given the same credentials (the recorded login hands out REDACTED, so a test
        // uses its own) finds every recording.
        try await withInProcessReplayer(store: store) { replayer async throws in
            // Again and again: the JSON body carrying a learned value is keyed once per event
            // loop and then found in its cache, scrubbed as when keyed from scratch.
            for round in 1...3 {
                for (method, target, headers, body) in Self.requests(given) {
                    let response = try await replayer.send(method, target, headers: headers, body: body)
                    #expect(response.cassetteSource == "hit", "round \(round): \(target)")
                }
                // A value never learned stays in the key: a miss, however often the learned one was sent.
                let other = Data(#"{"carry": "not-a-learned-value-\#(round)", "plain": "visible-body"}"#.utf8)
                let missed = try await replayer.send(.post, "/api/echo?kind=json", headers: [.contentType: "application/json"], body: other)
                #expect(missed.cassetteSource == "miss", "round \(round): \(missed.bodyText)")
            }
            await replayer.stop()
            for form in forms(of: given) {
                #expect(!replayer.standardOutput.contains(form), "\(form) printed on replay")
            }
        }
    }
}
#endif
