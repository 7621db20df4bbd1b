import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The client of a running `cassette` proxy's sessions, for test runners that drive the code
/// under test in another process (UI tests, end-to-end tests of a server or a CLI).
///
/// Each test starts a session: the proxy opens the test's cassette in the test's record mode on a
/// port of its own, the test hands ``Session/baseURL`` to the app, reads what the app asked in
/// ``Session/requests(method:path:host:)``, and ends the session with ``Session/end(strict:failOnUnused:)``,
/// which throws when a request had no recording. Sessions run in parallel, each with its own
/// sequence positions and journal.
///
/// ```swift
/// let control = CassetteControl(url: URL(string: "http://127.0.0.1:8080")!)
/// let session = try await control.startSession(cassette: "login", mode: .once)
/// app.launchEnvironment["API_BASE_URL"] = session.baseURL.absoluteString
/// // ... drive the app ...
/// try await session.end(strict: true)
/// ```
///
/// It depends on Foundation alone, so an XCUITest target and a Linux test target can both link it.
public struct CassetteControl: Sendable {
    /// When a session records and when it replays: the proxy's record modes.
    public enum Mode: String, Sendable, Hashable, CaseIterable, Codable {
        /// Replay only; a request without a recording is a miss. Spelled `none` on the wire; in
        /// Swift it has a name of its own, because `.none` where a `Mode?` is expected would be
        /// read as "no mode given" (`Optional.none`).
        case replayOnly = "none"
        /// Record a request only if the cassette has no recording of it, else replay.
        case once
        /// Replay what is recorded and record the rest, repeats beyond the recorded sequence included.
        case missing
        /// Forward and record everything, replacing the cassette's earlier recordings of each request.
        case all
    }

    /// The proxy's main address, such as `http://127.0.0.1:8080` (what `cassette` prints as
    /// `listening on`, and `cassette run` passes as `CASSETTE_URL`).
    public let url: URL
    let http: ControlHTTP

    /// A client of the proxy listening at `url`; `timeout` bounds each call to it.
    public init(url: URL, timeout: TimeInterval = 30) {
        self.url = url
        http = ControlHTTP(base: url, timeout: timeout)
    }

    /// Opens `cassette` in a session of its own: in `mode`, or the proxy's own mode when `nil`.
    /// Throws ``CassetteControlError`` with the proxy's explanation when it refuses (an unknown
    /// cassette in mode `none`, a recording mode on a proxy that only replays, too many sessions).
    public func startSession(cassette: String, mode: Mode? = nil) async throws -> Session {
        struct Opening: Encodable {
            let cassette: String
            let mode: Mode?
        }
        let body = try JSONEncoder().encode(Opening(cassette: cassette, mode: mode))
        let opened: Session.Info = try await http.call("POST", "/__cassette/sessions", json: body, expecting: [201])
        return Session(info: opened, http: http)
    }

    /// The proxy's live sessions.
    public func sessions() async throws -> [Session] {
        struct Listing: Decodable {
            let sessions: [Session.Info]
        }
        let listing: Listing = try await http.call("GET", "/__cassette/sessions")
        return listing.sessions.map { Session(info: $0, http: http) }
    }
}
