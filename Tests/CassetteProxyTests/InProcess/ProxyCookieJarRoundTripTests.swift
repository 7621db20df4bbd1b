import CassetteProxy
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// A client with a cookie jar (Python `requests.Session`, a real peer) replays what it recorded:
/// the cookies it set and reads back are kept as they were unless they are credentials, and
/// following a cookie's value into the rest of a request never keys that request differently on
/// replay, where the jar holds what the recording set (a credential as `REDACTED`).
@Suite("Proxy cookie jar round trip")
final class ProxyCookieJarRoundTripTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("c.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    static let sessionToken = "q8Zr2xN4vT7kP1mW9sD3fH6j"

    /// Sets five cookies (three plain, one of them named `cookie` as the `requests` suite's own
    /// test names it, a short one under a credential's name, a machine-made session token), then asks for paths that hold the same words as the cookie values
    /// (`never` and `abc` by coincidence, the token because the client copied it there), then
    /// reads its cookies back. Prints, as JSON, each answer's status and `X-Cassette`, and the jar.
    static let client = #"""
        import json, sys, requests
        base = sys.argv[1]
        jar = requests.Session()
        answers = []
        def get(path, **params):
            r = jar.get(base + path, params=params, timeout=60)
            answers.append([path, r.status_code, r.headers.get("X-Cassette")])
            return r
        get("/api/cookies/set", stale_after="never", theme="dark", cookie="value", sid="abc", session_token=sys.argv[2])
        get("/api/items/never")
        get("/api/items/abc")
        get("/api/items/" + sys.argv[2])
        cookies = get("/api/cookies").json()["cookies"]
        print(json.dumps({"answers": answers, "jar": jar.cookies.get_dict(), "upstreamSaw": cookies}))
        """#

    struct Run: Decodable {
        var answers: [[Value]]
        var jar: [String: String]
        var upstreamSaw: [String: String]

        enum Value: Decodable, Equatable {
            case text(String)
            case number(Int)
            case none

            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if container.decodeNil() {
                    self = .none
                } else if let number = try? container.decode(Int.self) {
                    self = .number(number)
                } else {
                    self = .text(try container.decode(String.self))
                }
            }
        }

        var statuses: [Value] { answers.map { $0[1] } }
        var sources: [Value] { answers.map { $0[2] } }
    }

    func runClient(through proxy: InProcessProxy) async throws -> Run {
        try await ForwardProxyClients.ensureRequests()
        let result = try await ExternalTool.run(["python3", "-c", Self.client, proxy.url.absoluteString, Self.sessionToken], cwd: workspace.directory)
        #expect(result.status == 0, "\(result)")
        let line = try #require(result.stdout.split(separator: "\n").last, "\(result)")
        return try JSONDecoder().decode(Run.self, from: Data(line.utf8))
    }

    @Test func aCookieJarClientReplaysEveryRequestItRecorded() async throws {
        let recorded = try await PythonUpstream.with(in: workspace.directory.path) { upstream in
            try await withInProcessRecorder(upstream: upstream, store: store) { recorder in
                try await runClient(through: recorder)
            }
        }
        #expect(recorded.statuses == Array(repeating: .number(200), count: 5), "\(recorded.answers)")
        #expect(recorded.sources == Array(repeating: .text("recorded"), count: 5), "\(recorded.answers)")
        #expect(
            recorded.upstreamSaw == ["stale_after": "never", "theme": "dark", "cookie": "value", "sid": "abc", "session_token": Self.sessionToken])

        // The upstream is gone: every answer comes from the cassette.
        let replayed = try await withInProcessReplayer(store: store) { replayer in
            try await runClient(through: replayer)
        }
        #expect(replayed.statuses == Array(repeating: .number(200), count: 5), "\(replayed.answers)")
        #expect(replayed.sources == Array(repeating: .text("hit"), count: 5), "\(replayed.answers)")
        // Plain cookies read back as they were set; credentials as the recording holds them.
        #expect(
            replayed.jar == [
                "stale_after": "never", "theme": "dark", "cookie": "value", "sid": Redactor.placeholder, "session_token": Redactor.placeholder,
            ])

        let keys = try await StoreFiles.interactions(at: store).map(\.key)
        #expect(keys.contains("GET /api/items/never"), "\(keys)")
        #expect(keys.contains("GET /api/items/abc"), "\(keys)")
        #expect(keys.contains("GET /api/items/REDACTED"), "the copied token is followed into the path: \(keys)")
        #expect(try StoreFiles.files(at: store, containing: Self.sessionToken) == [])
    }
}
