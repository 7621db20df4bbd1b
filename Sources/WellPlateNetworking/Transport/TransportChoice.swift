import Foundation
import WellPlateCore

/// Which live transport sends requests: libcurl (`CurlTransport`) or URLSession
/// (`URLSessionTransport`). libcurl exists on Linux and macOS; iOS, tvOS, watchOS and visionOS,
/// and builds made with `WELLPLATE_NO_CURL=1`, have URLSession only.
public enum TransportChoice: String, Sendable, CaseIterable {
    /// `CurlTransport`: byte-exact headers, flow-controlled streams, PEM client certificates.
    case curl
    /// `URLSessionTransport`: the platform's own HTTP stack.
    case urlsession

    /// libcurl where this build has it, else URLSession.
    public static var `default`: TransportChoice {
        #if canImport(CCurl)
        .curl
        #else
        .urlsession
        #endif
    }

    /// Whether this build can use it.
    public var isAvailable: Bool {
        #if canImport(CCurl)
        true
        #else
        self == .urlsession
        #endif
    }

    /// The process-wide transport of the default choice: what clients send through when they are
    /// given none.
    public static var defaultShared: any StreamingHTTPTransport {
        #if canImport(CCurl)
        CurlTransport.shared
        #else
        URLSessionTransport.shared
        #endif
    }

    /// A transport of this kind: the shared one for the default TLS settings, else one of its own.
    /// - Throws: `TransportError` when this build lacks it (`.other`) or cannot apply `tls` (`.tls`).
    public func transport(tls: TLSConfiguration = TLSConfiguration()) throws(TransportError) -> any StreamingHTTPTransport {
        switch self {
        case .urlsession:
            guard !tls.isDefault else { return URLSessionTransport.shared }
            var configuration = URLSessionTransport.Configuration()
            configuration.tls = tls
            return try URLSessionTransport(configuration: configuration)
        case .curl:
            #if canImport(CCurl)
            guard !tls.isDefault else { return CurlTransport.shared }
            var configuration = CurlTransport.Configuration()
            configuration.tls = tls
            return try CurlTransport(configuration: configuration)
            #else
            throw TransportError(.other, Self.unavailableMessage)
            #endif
        }
    }

    static let unavailableMessage = "this build has no libcurl (an Apple platform without it, or WELLPLATE_NO_CURL=1); use the \"urlsession\" transport"
}
