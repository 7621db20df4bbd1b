import Foundation
import WellPlateCore

/// The backends an app can talk to, each with its own base URL.
public enum Environment: String, Sendable, Hashable, CaseIterable, Codable {
    case development
    case staging
    case production

    /// Accepts the full names and the short ones used on command lines (`dev`, `stage`, `prod`).
    public init?(name: String) {
        switch name.lowercased() {
        case "development", "dev": self = .development
        case "staging", "stage": self = .staging
        case "production", "prod": self = .production
        default: return nil
        }
    }

    /// The environment's API address, used unless `AppConfig.baseURLOverride` replaces it.
    public var defaultBaseURL: URL {
        switch self {
        case .development: URL(string: "https://dev-api.wellplate.com")!
        case .staging: URL(string: "https://staging-api.wellplate.com")!
        case .production: URL(string: "https://api.wellplate.com")!
        }
    }

    /// The short name, used as the default cassette name (`dev`, `staging`, `prod`).
    public var shortName: String {
        switch self {
        case .development: "dev"
        case .staging: "staging"
        case .production: "prod"
        }
    }

    static let acceptedNames = "development (dev), staging (stage), production (prod)"
}

/// Where a client's answers come from.
public enum ClientMode: String, Sendable, Hashable, CaseIterable, Codable {
    /// The real API over the network.
    case live
    /// Fixture files through `MockAPIClient`.
    case mock
    /// Recorded responses from the cassette store, no network.
    case replay
    /// The real API, with every exchange written to the cassette store.
    case record

    static let acceptedNames = ClientMode.allCases.map(\.rawValue).joined(separator: ", ")
}
