import Foundation
import WellPlateCore
import WellPlateNetworking

/// One of an environment's `"upstreams"` in cassette.json: a host the app calls, recorded and
/// replayed through a listener of its own.
///
/// ```json
/// "environments": {"dev": {"upstreams": {
///   "api": {"upstream": "https://api.example.com", "port": 8080, "tls": {"cacert": "corp-ca.pem"}},
///   "auth": {"upstream": "https://auth.example.com"}
/// }}}
/// ```
package struct EnvironmentUpstream: Sendable, Equatable {
    /// The entry's name (`api`, `auth`): for messages only.
    package var name: String
    package var url: URL
    /// Where its listener listens; `nil`: picked from `--port`.
    package var port: Int?
    /// Its own `"tls"`, on top of the environment's.
    package var tls: TLSConfiguration?

    package init(name: String, url: URL, port: Int? = nil, tls: TLSConfiguration? = nil) {
        self.name = name
        self.url = url
        self.port = port
        self.tls = tls
    }

    static let keys = ["upstream", "port", "tls"]

    /// The entries of an `"upstreams"` object, in the order the file gives them.
    static func parse(_ value: JSONValue, at path: String, reader: ConfigReader) throws(ConfigError) -> [EnvironmentUpstream] {
        let table = try reader.object(value, at: path, keys: nil)
        guard !table.members.isEmpty else {
            throw ConfigError(
                source: reader.source, key: path, problem: "names no upstream",
                accepted: "{\"api\": {\"upstream\": \"https://api.example.com\"}, \"auth\": {\"upstream\": \"https://auth.example.com\"}}")
        }
        var entries: [EnvironmentUpstream] = []
        for (name, entry) in table.members {
            let entryPath = "\(path).\(name)"
            let fields = try reader.object(entry, at: entryPath, keys: keys)
            guard let upstream = fields["upstream"] else {
                throw ConfigError(
                    source: reader.source, key: entryPath, problem: "has no \"upstream\"", accepted: "{\"upstream\": \"https://auth.example.com\"}")
            }
            let url = try reader.httpURL(upstream, at: "\(entryPath).upstream")
            let origin = CassetteInfo.origin(of: url)
            if let other = entries.first(where: { CassetteInfo.origin(of: $0.url) == origin }) {
                throw ConfigError(
                    source: reader.source, key: "\(entryPath).upstream", problem: "is the same host as \(path).\(other.name)",
                    accepted: "one entry per host (scheme, host and port)")
            }
            var parsed = EnvironmentUpstream(name: name, url: url)
            if let port = fields["port"] { parsed.port = try reader.port(port, at: "\(entryPath).port") }
            if let tls = fields["tls"] { parsed.tls = try reader.tls(tls, at: "\(entryPath).tls") }
            if let port = parsed.port, let other = entries.first(where: { $0.port == port }) {
                throw ConfigError(
                    source: reader.source, key: "\(entryPath).port", problem: "is \(port), already the port of \(path).\(other.name)",
                    accepted: "a port of its own for each upstream, or none (picked from --port)")
            }
            entries.append(parsed)
        }
        return entries
    }
}
