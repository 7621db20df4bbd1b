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

    /// A transport of this kind: the shared one for the default TLS settings and no proxy, else
    /// one of its own. `proxy`: an HTTP proxy every request goes through (curl only: URLSession
    /// follows the system's proxy settings).
    /// - Throws: `TransportError` when this build lacks it (`.other`), cannot apply `tls` (`.tls`)
    ///   or is URLSession given a proxy (`.invalidRequest`).
    public func transport(tls: TLSConfiguration = TLSConfiguration(), proxy: URL? = nil) throws(TransportError) -> any StreamingHTTPTransport {
        switch self {
        case .urlsession:
            if let proxy {
                throw TransportError(
                    .invalidRequest,
                    "the urlsession transport follows the system's proxy settings (the simulator's or the device's), so \"proxy\" \(proxy.absoluteString) cannot be applied; set it there, or use the \"curl\" transport"
                )
            }
            guard !tls.isDefault else { return URLSessionTransport.shared }
            var configuration = URLSessionTransport.Configuration()
            configuration.tls = tls
            return try URLSessionTransport(configuration: configuration)
        case .curl:
            #if canImport(CCurl)
            guard !tls.isDefault || proxy != nil else { return CurlTransport.shared }
            var configuration = CurlTransport.Configuration()
            configuration.tls = tls
            configuration.proxy = proxy?.absoluteString
            return try CurlTransport(configuration: configuration)
            #else
            throw TransportError(.other, Self.unavailableMessage)
            #endif
        }
    }

    static let unavailableMessage = "this build has no libcurl (an Apple platform without it, or WELLPLATE_NO_CURL=1); use the \"urlsession\" transport"
}
