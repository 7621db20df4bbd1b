import Foundation

/// The bytes of an IPv4 or IPv6 address written as text (in brackets or not), `nil` for a name:
/// what a certificate's IP address entry holds, and the one test of whether a host is an address
/// (SNI cannot carry one; `UpstreamTLS.serverHostname`). inet_pton is the parser swift-nio-ssl
/// itself uses to refuse an address as SNI, so the two never disagree.
package struct IPAddressBytes {
    package let bytes: [UInt8]

    package init?(_ text: String) {
        let host = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }
}
