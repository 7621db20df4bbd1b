import WellPlateCore

/// Which client the factory built for a configuration, and why it did not honour the requested
/// mode when it refused to.
public struct APIClientDecision: Sendable, Equatable, CustomStringConvertible {
    /// The configuration's environment.
    public let environment: Environment
    /// The configuration's mode.
    public let requestedMode: ClientMode
    /// The mode of the client built.
    public let mode: ClientMode
    /// Set when `mode` differs from `requestedMode`.
    public let refusal: String?

    /// Production always gets the live client: mock and replay would show users made-up or stale
    /// data, and recording in-process would write real users' traffic to disk.
    public init(config: AppConfig) {
        environment = config.environment
        requestedMode = config.mode
        if config.environment == .production && config.mode != .live {
            mode = .live
            refusal = "production always uses the live client; mode \"\(config.mode.rawValue)\" was ignored"
        } else {
            mode = config.mode
            refusal = nil
        }
    }

    /// `environment: mode client`, followed by the refusal in parentheses when there is one.
    public var description: String {
        let base = "\(environment.rawValue): \(mode.rawValue) client"
        return refusal.map { "\(base) (\($0))" } ?? base
    }
}
