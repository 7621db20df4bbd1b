import Foundation
import Logging
import Synchronization
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// Collects what a logger is given, for asserting on it.
final class CapturedLog: Sendable {
    private let entries = Mutex<[String]>([])

    var lines: [String] { entries.withLock { $0 } }

    func logger() -> Logger {
        var logger = Logger(label: "test") { _ in Handler(log: self) }
        logger.logLevel = .trace
        return logger
    }

    fileprivate func append(_ line: String) {
        entries.withLock { $0.append(line) }
    }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let fields = (event.metadata ?? [:]).map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ")
            log.append("\(event.level) \(event.message) \(fields)")
        }
    }
}

@Suite("APIClient logging")
struct APIClientLoggingTests {
    static let secrets = ["Bearer tok-3f9a1c77", "session=cookie-8d2e4b", "key-55aa77cc", "qs-token-91b2"]

    @Test func requestsAndResponsesAreLoggedWithSecretsRedacted() async throws {
        try await withSampleAPI { base in
            let captured = CapturedLog()
            var configuration = APIClient.Configuration()
            configuration.enableLogging = true
            configuration.retryPolicy = .never
            let client = APIClient(transport: try TransportChoice.default.transport(), configuration: configuration, logger: captured.logger())
            _ = try await client.get(
                url: base.appending(pathAndQuery: "/api/echo?access_token=qs-token-91b2&page=2"),
                headers: ["Authorization": "Bearer tok-3f9a1c77", "Cookie": "session=cookie-8d2e4b", "X-Api-Key": "key-55aa77cc"],
                responseType: Echo.self
            )
            let lines = captured.lines
            #expect(lines.count == 2, "one line for the request, one for the response: \(lines)")
            #expect(lines.first?.contains("GET \(base.absoluteString)/api/echo?access_token=REDACTED&page=2") == true)
            #expect(lines.last?.contains("200") == true)
            for secret in Self.secrets {
                #expect(!lines.joined().contains(secret), "\(secret) was logged")
            }
            #expect(lines.first?.contains("Authorization: REDACTED") == true)
        }
    }

    @Test func theRequestSentAgainAfterARefreshSaysSoAndItsNewTokenIsRedacted() async throws {
        try await withSampleAPI { base in
            let captured = CapturedLog()
            let credentials = SampleAPICredentials(base: base, refreshToken: "rt_valid")
            var configuration = APIClient.Configuration()
            configuration.enableLogging = true
            credentials.install(in: &configuration)
            let client = APIClient(transport: try TransportChoice.default.transport(), configuration: configuration, logger: captured.logger())
            _ = try await client.get(url: base.appending(pathAndQuery: "/api/me"), responseType: CredentialRefreshTests.Profile.self)
            let requests = captured.lines.filter { $0.contains("→ GET") }
            #expect(requests.count == 2, "\(captured.lines)")
            #expect(requests.map { $0.contains("credentials=refreshed") } == [false, true])
            #expect(!captured.lines.joined().contains(credentials.currentAccessToken))
        }
    }

    @Test func nothingIsLoggedUnlessLoggingIsEnabled() async throws {
        try await withSampleAPI { base in
            let captured = CapturedLog()
            let client = APIClient(transport: try TransportChoice.default.transport(), configuration: APIClient.Configuration(), logger: captured.logger())
            _ = try await client.get(url: base.appending(pathAndQuery: "/api/health"), responseType: Health.self)
            #expect(captured.lines.isEmpty)
        }
    }

    @Test func transportFailuresAreLoggedAsWarningsWithoutSecrets() async throws {
        try await Ports.withRefusingPort { port in
            let captured = CapturedLog()
            var configuration = APIClient.Configuration()
            configuration.enableLogging = true
            configuration.retryPolicy = .never
            let client = APIClient(transport: try TransportChoice.default.transport(), configuration: configuration, logger: captured.logger())
            await #expect(throws: APIError.self) {
                _ = try await client.get(url: URL(string: "http://127.0.0.1:\(port)/x?api_key=key-55aa77cc")!, responseType: Health.self)
            }
            #expect(captured.lines.contains { $0.hasPrefix("warning") && $0.contains("api_key=REDACTED") })
            #expect(!captured.lines.joined().contains("key-55aa77cc"))
        }
    }
}
