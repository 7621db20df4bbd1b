import Foundation
import WellPlateCore

/// Wraps a live transport (normally libcurl) and records every completed exchange into a
/// cassette, following the session's record mode. Safe under any number of concurrent requests.
public struct RecordingTransport: HTTPTransport {
    /// The cassette being recorded into, with its counters.
    public let session: CassetteSession

    /// Records through `session`, which needs an upstream transport to forward requests.
    public init(session: CassetteSession) {
        self.session = session
    }

    /// Opens `cassette` in `store` for recording with `mode`, forwarding through `upstream`.
    public static func open(
        store: CassetteStore,
        cassette: String,
        mode: RecordMode = .missing,
        upstream: any HTTPTransport,
        matchingRules: MatchingRules? = nil,
        redactor: Redactor = .default
    ) async throws -> RecordingTransport {
        let options = CassetteSession.Options(cassette: cassette, mode: mode, matchingRules: matchingRules, redactor: redactor)
        return RecordingTransport(session: try await CassetteSession.open(store: store, options: options, upstream: upstream))
    }

    /// Answers `request` as the session's record mode says: replayed from the cassette, or forwarded and recorded.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await session.respond(to: request).response
    }
}

/// Answers every request from a cassette held in memory; a request without a recording throws
/// `CassetteMiss`. Never touches the network or, after opening, the SQLite file.
public struct ReplayTransport: HTTPTransport {
    /// The cassette being replayed, with its counters.
    public let session: CassetteSession

    /// Replays from `session`, whatever mode it was opened in.
    public init(session: CassetteSession) {
        self.session = session
    }

    /// The recorded response for `request`; throws `CassetteMiss` when there is none.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try Task.checkCancellation()
        return try session.replay(request).response
    }
}
