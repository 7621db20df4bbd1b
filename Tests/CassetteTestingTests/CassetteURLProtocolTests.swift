import Foundation
import Synchronization
import TestSupport
import Testing
import WellPlateNetworking

@testable import CassetteTesting
@testable import WellPlateCore
@testable import WellPlateNetworking

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSession through `CassetteURLProtocol`: recorded from a live sample API, then replayed with
/// the server stopped, and the two runs must see the same answers.
@Suite("CassetteURLProtocol")
struct CassetteURLProtocolTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "cassette-protocol")
    }

    /// What the test saw of one exchange, compared between the recording and the replaying run.
    struct Seen: Equatable {
        var status: Int
        var url: String
        var body: String
    }

    /// A GET, a POST with `httpBody`, a PUT with `httpBodyStream`, a DELETE, a 404, a 500 and a
    /// redirect, all through `Cassette.current.urlSession`.
    static func exchanges(base: URL) async throws -> [Seen] {
        let session = Cassette.current.urlSession
        func send(_ method: String, _ path: String, body: Data? = nil, stream: Bool = false) async throws -> Seen {
            var request = URLRequest(url: URL(string: path, relativeTo: base)!.absoluteURL)
            request.httpMethod = method
            if let body {
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                if stream { request.httpBodyStream = InputStream(data: body) } else { request.httpBody = body }
            }
            let (data, response) = try await session.data(for: request)
            let http = try #require(response as? HTTPURLResponse)
            return Seen(status: http.statusCode, url: http.url?.path ?? "", body: String(decoding: data, as: UTF8.self))
        }
        return [
            try await send("GET", "/api/users/1"),
            try await send("POST", "/api/users", body: Data(#"{"name":"Grace Hopper","email":"grace@example.com"}"#.utf8)),
            try await send("PUT", "/api/users/2", body: Data(#"{"name":"Alan","email":"alan@example.com"}"#.utf8), stream: true),
            try await send("DELETE", "/api/users/3"),
            try await send("GET", "/api/users/99"),
            try await send("GET", "/api/status/500"),
            try await send("GET", "/api/redirect"),
        ]
    }

    @Test func recordsThroughLibcurlAndReplaysWithTheServerStopped() async throws {
        let settings = CassetteSettings(cassette: "protocol", storePath: directory.path(), mode: .once, allowUnused: false)
        let recorded = try await withSampleAPI { base in
            try await Self.run(settings) { try await Self.exchanges(base: base) }
        }
        #expect(recorded.map(\.status) == [200, 201, 200, 204, 404, 500, 200])
        #expect(recorded[6].url == "/api/health", "the redirect is followed to its target")
        #expect(recorded[1].body.contains("Grace Hopper"))
        #expect(recorded[2].body.contains("alan@example.com"), "the streamed body reached the server")

        let keys = Set(try await storedInteractions(directory.path(), cassette: "protocol").map(\.key))
        #expect(keys.contains("GET /api/redirect") && keys.contains("GET /api/health"), "each hop is recorded: \(keys.sorted())")

        var replay = settings
        replay.mode = .replayOnly
        let replayed = try await Self.run(replay) { try await Self.exchanges(base: URL(string: "http://127.0.0.1:1")!) }
        #expect(replayed == recorded)
    }

    @Test func aMissFailsTheTaskWithTheExplanationAndTheTestWithAnIssue() async throws {
        let store = directory.path()
        let settings = CassetteSettings(cassette: "protocol-miss", storePath: store, mode: .once)
        _ = try await withSampleAPI { base in
            try await Self.run(settings) { try await Cassette.current.urlSession.data(from: base.appending(path: "api/users/1")) }
        }
        var replay = settings
        replay.mode = .replayOnly
        try await withKnownIssue {
            try await CassetteScope.run(replay, sourceLocation: #_sourceLocation) {
                _ = try await Cassette.current.urlSession.data(from: URL(string: "http://127.0.0.1:1/api/users/1")!)
                do {
                    _ = try await Cassette.current.urlSession.data(from: URL(string: "http://127.0.0.1:1/api/users/2")!)
                    Issue.record("an unrecorded request was answered")
                } catch {
                    let miss = try #require(CassetteURLProtocol.miss(in: error))
                    #expect(miss.key == "GET /api/users/2")
                    #expect(error.localizedDescription.contains("nearest: GET /api/users/1"))
                    throw error
                }
            }
        } matching: { issue in
            "\(issue)".contains("No recording of GET /api/users/2") && "\(issue)".contains("nearest: GET /api/users/1")
                && "\(issue)".contains("CASSETTE_RECORD=missing")
        }
    }

    /// Runs `body` inside a cassette scope and hands back its result.
    static func run<T: Sendable>(_ settings: CassetteSettings, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let result = Mutex<T?>(nil)
        try await CassetteScope.run(settings, sourceLocation: #_sourceLocation) {
            let value = try await body()
            result.withLock { $0 = value }
        }
        return try #require(result.withLock { $0 })
    }
}
