import Foundation
import WellPlateCore

/// How the app's networking is set up: which backend, where answers come from, and the knobs the
/// design documents name. Production can never run in mock or replay mode.
public struct AppConfig: Sendable, Equatable {
    /// The backend to talk to.
    public var environment: Environment
    /// Where answers come from; production only allows `.live`.
    public var mode: ClientMode
    /// Whether the live client logs every request and response, secrets redacted.
    public var enableLogging: Bool
    /// Seconds before a request times out.
    public var apiTimeout: TimeInterval
    /// Seconds `MockAPIClient` waits before answering, to feel like a network.
    public var mockResponseDelay: TimeInterval
    /// Replaces the environment's base URL (for a local server or a `cassette` proxy).
    public var baseURLOverride: URL?
    /// The cassette store for replay and record modes.
    public var cassettePath: String
    /// The cassette inside the store; `nil` means the environment's short name.
    public var cassetteName: String?
    /// The fixture directory for mock mode.
    public var fixturesDirectory: String?
    /// Extra trusted CAs, a client certificate, or (never in production) no verification, for
    /// live and record modes.
    public var tls = TLSConfiguration()
    /// The live transport for live and record modes: libcurl where this build has it, else
    /// URLSession (`"transport": "curl"|"urlsession"` in a configuration file).
    public var transport: TransportChoice = .default
    /// An HTTP proxy that every live and record request goes through (`"proxy": "http://127.0.0.1:8080"`
    /// in a configuration file), such as `cassette record --forward`; the certificate authority
    /// that proxy shows HTTPS through goes in `tls` (`"cacert"`). The curl transport applies it;
    /// URLSession follows the system's proxy settings instead.
    public var proxy: URL?

    /// Defaults to the development backend in live mode, without logging, with a 30 s timeout and a 0.8 s mock delay.
    public init(
        environment: Environment = .development,
        mode: ClientMode = .live,
        enableLogging: Bool = false,
        apiTimeout: TimeInterval = 30,
        mockResponseDelay: TimeInterval = 0.8,
        baseURLOverride: URL? = nil,
        cassettePath: String = "cassettes.db",
        cassetteName: String? = nil,
        fixturesDirectory: String? = nil
    ) {
        self.environment = environment
        self.mode = mode
        self.enableLogging = enableLogging
        self.apiTimeout = apiTimeout
        self.mockResponseDelay = mockResponseDelay
        self.baseURLOverride = baseURLOverride
        self.cassettePath = cassettePath
        self.cassetteName = cassetteName
        self.fixturesDirectory = fixturesDirectory
    }

    /// The design documents' switch: `true` is mock mode, `false` the live client.
    public var mockMode: Bool {
        get { mode == .mock }
        set { mode = newValue ? .mock : .live }
    }

    /// `baseURLOverride` when set, otherwise the environment's default base URL.
    public var baseURL: URL { baseURLOverride ?? environment.defaultBaseURL }

    /// `cassetteName` when set, otherwise the environment's short name.
    public var effectiveCassetteName: String { cassetteName ?? environment.shortName }

    /// Development with logging on, live or (with `mockMode`) from fixtures.
    public static func development(mockMode: Bool = false) -> AppConfig {
        AppConfig(environment: .development, mode: mockMode ? .mock : .live, enableLogging: true)
    }

    /// Staging, live or (with `mockMode`) from fixtures.
    public static func staging(mockMode: Bool = false) -> AppConfig {
        AppConfig(environment: .staging, mode: mockMode ? .mock : .live)
    }

    /// Production: always live, without a mock delay.
    public static func production() -> AppConfig {
        AppConfig(environment: .production, mode: .live, mockResponseDelay: 0)
    }

    /// Throws when the combination cannot be used: production in any mode but live, or
    /// out-of-range numbers.
    public func validate(source: String = "configuration") throws(ConfigError) {
        if environment == .production && mode != .live {
            // Recording production would write real users' data into a cassette.
            throw ConfigError(
                source: source, key: "mode",
                problem: "production must talk to the real API, but mode is \"\(mode.rawValue)\"",
                accepted: "live for production; mock, replay and record only for development and staging"
            )
        }
        if environment == .production && tls.insecure {
            throw ConfigError(
                source: source, key: "tls.insecure", problem: "production must verify the server's certificate",
                accepted: "false, or \"cacert\" with the CA that signed the certificate")
        }
        guard Seconds(apiTimeout, allowsZero: false) != nil else {
            throw ConfigError(source: source, key: "apiTimeout", problem: "\(apiTimeout) is out of range", accepted: Seconds.acceptedRange(allowsZero: false))
        }
        guard Seconds(mockResponseDelay, allowsZero: true) != nil else {
            throw ConfigError(
                source: source, key: "mockResponseDelay", problem: "\(mockResponseDelay) is out of range", accepted: Seconds.acceptedRange(allowsZero: true))
        }
    }
}
