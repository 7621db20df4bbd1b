import CassetteProxy
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// A server that repeats a request's credential (an echo service, an error quoting it) is
/// recorded with `REDACTED` there, and replayed with the live request's own value: the client
/// reads back what it sent, and the store never holds a secret.
@Suite("Proxy secret echoes")
final class ProxySecretEchoTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("c.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    static let recordedAuthorization = "Bearer rec0rded/t0ken-1111"
    static let recordedSid = "rec0rded-sid-value-2222"

    struct Echo: Decodable {
        var headers: [String: String]
        var authorizationEncoded: String
        var cookies: [String: String]
    }

    static func recordingHeaders() -> HTTPFields {
        [.authorization: recordedAuthorization, .cookie: "sid=\(recordedSid); theme=dark"]
    }

    /// Records `paths` from the Python upstream with the recorded secrets, then runs `body` with a replayer.
    func recordThenReplay(_ paths: [String], _ body: (InProcessProxy) async throws -> Void) async throws {
        try await PythonUpstream.with(in: workspace.directory.path) { upstream in
            try await withInProcessRecorder(upstream: upstream, store: store) { recorder async throws in
                for path in paths {
                    let response = try await recorder.get(path, headers: Self.recordingHeaders())
                    #expect(response.statusCode == 200)
                    // While recording, the client gets the upstream's answer as it was.
                    #expect(response.headerFields[HTTPField.Name("X-Echo-Authorization")!] == Self.recordedAuthorization)
                }
            }
        }
        #expect(try StoreFiles.files(at: store, containing: "rec0rded") == [])
        try await withInProcessReplayer(store: store, body)
    }

    @Test(arguments: ["/api/echo", "/api/echo?gzip=1", "/api/echo?stream=1"])
    func aReplayEchoesTheLiveRequestsOwnSecrets(path: String) async throws {
        try await recordThenReplay([path]) { replayer async throws in
            let live = "Bearer l1ve/\"value\" 9"
            let response = try await replayer.get(path, headers: [.authorization: live, .cookie: "sid=live-sid-33; theme=dark"])
            #expect(response.cassetteSource == "hit")
            let echo = try JSONDecoder().decode(Echo.self, from: response.body)
            #expect(echo.headers["Authorization"] == live)
            #expect(echo.authorizationEncoded == live.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))))
            #expect(echo.cookies["sid"] == "live-sid-33")
            #expect(echo.headers["Cookie"] == "sid=live-sid-33; theme=dark")
            #expect(response.headerFields[HTTPField.Name("X-Echo-Authorization")!] == live)
            #expect(response.headerFields[HTTPField.Name("X-Echo-Sid")!] == "live-sid-33")
            if let length = response.headerFields[.contentLength] {
                #expect(Int(length) == response.body.count)
            }
        }
    }

    @Test func aSecretTheLiveRequestDoesNotCarryStaysRedacted() async throws {
        try await recordThenReplay(["/api/echo"]) { replayer async throws in
            let response = try await replayer.get("/api/echo", headers: [.cookie: "sid=live-sid-44"])
            #expect(response.cassetteSource == "hit")
            let echo = try JSONDecoder().decode(Echo.self, from: response.body)
            #expect(echo.headers["Authorization"] == Redactor.placeholder)
            #expect(echo.cookies["sid"] == "live-sid-44")
            #expect(response.headerFields[HTTPField.Name("X-Echo-Authorization")!] == Redactor.placeholder)
            #expect(Int(response.headerFields[.contentLength] ?? "") == response.body.count)

            // Without any secret the request takes the plain path: the recording as stored.
            let bare = try await replayer.get("/api/echo")
            #expect(bare.cassetteSource == "hit")
            let stored = try JSONDecoder().decode(Echo.self, from: bare.body)
            #expect(stored.headers["Authorization"] == Redactor.placeholder)
            #expect(stored.cookies["sid"] == Redactor.placeholder)
        }
    }

    @Test func aRecorderThatReplaysWhatItHasEchoesTheLiveSecretToo() async throws {
        try await recordThenReplay(["/api/echo"]) { _ in }
        try await PythonUpstream.with(in: workspace.directory.path) { upstream in
            try await withInProcessRecorder(upstream: upstream, store: store, arguments: ["--mode", "missing"]) { recorder async throws in
                let response = try await recorder.get("/api/echo", headers: [.authorization: "Bearer l1ve-on-a-recorder"])
                #expect(response.cassetteSource == "hit")
                let echo = try JSONDecoder().decode(Echo.self, from: response.body)
                #expect(echo.headers["Authorization"] == "Bearer l1ve-on-a-recorder")
                #expect(echo.cookies["sid"] == Redactor.placeholder)
            }
        }
    }

    @Test func theStoreNotesWhereEachEchoStandsAndHoldsNoValue() async throws {
        try await recordThenReplay(["/api/echo"]) { _ in }
        let stored = try await StoreFiles.interactions(at: store)
        let echoes = try #require(stored.first?.secretEchoes)
        #expect(Set(echoes.map(\.source)) == [.header("authorization"), .cookie("sid")])
        #expect(echoes.contains { $0.part == .header("x-echo-authorization", occurrence: 0) && $0.derivation == .whole })
        #expect(echoes.contains { $0.part == .body && $0.encoding == .unreserved })
        let body = try #require(stored.first?.responseBody)
        for echo in echoes where echo.part == .body {
            #expect(body[echo.offset..<(echo.offset + 8)] == Data(Redactor.placeholder.utf8))
        }
    }
}
