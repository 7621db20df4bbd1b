/// A glob on a host name (`--host-filter`, `--passthrough-host`): `*` any run of characters
/// (dots included, so `*.example.com` covers every subdomain), `?` one character; letters match
/// in any case. A pattern is matched against the host alone, without its port.
package struct HostPattern: Sendable, Equatable, CustomStringConvertible {
    package let description: String
    private let pattern: [UInt8]

    package init(_ text: String) {
        description = text
        pattern = Array(text.lowercased().utf8)
    }

    package func matches(_ host: String) -> Bool {
        let name = Array(host.lowercased().utf8)
        // Iterative glob with one backtracking point per `*`: linear in practice, never exponential.
        var p = 0
        var n = 0
        var star: Int?
        var resume = 0
        while n < name.count {
            if p < pattern.count, pattern[p] == UInt8(ascii: "?") || pattern[p] == name[n] {
                p += 1
                n += 1
            } else if p < pattern.count, pattern[p] == UInt8(ascii: "*") {
                star = p
                resume = n
                p += 1
            } else if let star {
                p = star + 1
                resume += 1
                n = resume
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == UInt8(ascii: "*") { p += 1 }
        return p == pattern.count
    }
}
