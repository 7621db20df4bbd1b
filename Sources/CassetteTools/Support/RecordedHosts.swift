import Foundation
import WellPlateCore
import WellPlateNetworking

/// The hosts of a multi-host cassette (recorded through several `--upstream`s, its keys starting
/// with their origin), for the commands that describe an API per host: `schema`, `export`,
/// `codegen`, `openapi`, `diff` and `verify` treat each host as a cassette of its own, so the same
/// path on two hosts never merges into one endpoint. A single-host cassette is one group whose
/// origin is `nil`, and those commands behave exactly as before.
package struct RecordedHosts: Sendable {
    /// One host's recordings.
    package struct Host: Sendable {
        /// `scheme://host[:port]` as keys spell it; `nil` for a single-host cassette.
        package let origin: String?
        package var interactions: [Interaction]

        /// A directory name for the host's files: `api.example.com`, `127.0.0.1_8081`.
        package var directoryName: String {
            guard let origin else { return "" }
            var name = origin
            if let scheme = name.range(of: "://") { name = String(name[scheme.upperBound...]) }
            return String(name.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" })
        }
    }

    /// In the order each host was first recorded.
    package let hosts: [Host]

    package var isMultiHost: Bool { hosts.count > 1 }

    package init(_ interactions: [Interaction]) {
        var groups: [String?: Host] = [:]
        var first: [String?: (Date, Int64)] = [:]
        for interaction in interactions {
            let origin = Self.keyOrigin(of: interaction)
            groups[origin, default: Host(origin: origin, interactions: [])].interactions.append(interaction)
            let time = (interaction.recordedAt, interaction.id ?? 0)
            if let known = first[origin], known <= time { continue }
            first[origin] = time
        }
        if groups.count <= 1 {
            hosts = [Host(origin: nil, interactions: interactions)]
        } else {
            hosts = groups.values.sorted { first[$0.origin]! < first[$1.origin]! }
        }
    }

    /// The origin a recording's key starts with, `nil` for a key that starts with its path.
    static func keyOrigin(of interaction: Interaction) -> String? {
        guard let space = interaction.key.firstIndex(of: " ") else { return nil }
        let target = interaction.key[interaction.key.index(after: space)...]
        guard !target.hasPrefix("/") else { return nil }
        return URLNormalizer.normalize(target: interaction.url).origin
    }
}
