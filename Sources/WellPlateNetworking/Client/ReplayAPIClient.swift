import Foundation
import Logging
import WellPlateCore

/// Serves recorded responses from the cassette store with exactly the live client's decoding,
/// errors and retry decisions: it is `APIClient` itself, over a `ReplayTransport`. Recorded 4xx and
/// 5xx replay as the same `APIError`; a request with no recording throws `CassetteMiss`.
///
/// A configuration with ``APIClient/Configuration/refreshCredentials`` replays a refreshed 401 as
/// it was recorded: the 401, the refresh call (when the refresh sends it through a replaying client
/// of the same `session`) and the request sent again, in that order, since recordings of one
/// request replay in the order they were made. ``APIClient/Configuration/onUnauthorized`` and
/// `Notification.Name.userUnauthorized` follow a recorded failed refresh the same way.
public final class ReplayAPIClient: APIClientProtocol {
    /// The cassette being replayed, with its counters.
    public let session: CassetteSession
    private let client: APIClient

    /// A client replaying from `session`, with the live defaults but no waits between retries unless configured.
    public init(
        session: CassetteSession, configuration: APIClient.Configuration = ReplayAPIClient.defaultConfiguration,
        logger: Logger = Logger(label: "WellPlateNetworking.ReplayAPIClient")
    ) {
        self.session = session
        client = APIClient(transport: ReplayTransport(session: session), configuration: configuration, logger: logger)
    }

    /// Opens `path` read-only and loads `cassette` into memory.
    public static func open(
        path: String = CassetteStore.defaultPath,
        cassette: String = "dev",
        sequencePolicy: SequencePolicy = .repeatLast,
        matchingRules: MatchingRules? = nil,
        redactor: Redactor = .default,
        configuration: APIClient.Configuration = ReplayAPIClient.defaultConfiguration
    ) async throws -> ReplayAPIClient {
        let store = try await CassetteStore.open(path: path, access: .readOnly)
        let options = CassetteSession.Options(
            cassette: cassette, mode: .replayOnly, matchingRules: matchingRules, redactor: redactor, sequencePolicy: sequencePolicy)
        let session = try await CassetteSession.open(store: store, options: options)
        if session.index.interactionCount == 0 {
            let available = try await store.cassettes().map(\.name)
            throw CassetteStoreError.missingCassette(cassette, path: path, available: available)
        }
        return ReplayAPIClient(session: session, configuration: configuration)
    }

    /// The live defaults, with retries that replay the recorded sequence without waiting.
    public static var defaultConfiguration: APIClient.Configuration {
        var configuration = APIClient.Configuration()
        configuration.retryPolicy = .replay
        return configuration
    }

    /// Answers from the cassette and decodes as `APIClient` does; throws `CassetteMiss` when nothing was recorded.
    public func request<T: Decodable>(url: URL, method: HTTPMethod, headers: [String: String]?, body: Data?, responseType: T.Type) async throws -> T {
        try await client.request(url: url, method: method, headers: headers, body: body, responseType: responseType)
    }

    /// Answers from the cassette, ignoring the body; throws `CassetteMiss` when nothing was recorded.
    public func requestVoid(url: URL, method: HTTPMethod, headers: [String: String]?, body: Data?) async throws {
        try await client.requestVoid(url: url, method: method, headers: headers, body: body)
    }
}
