import Foundation

/// A cassette recorded from several upstreams at once (`cassette record --upstream A --upstream B`)
/// remembers all of them in its `upstream` column, separated by single spaces (a URL holds none),
/// in the order they were first given; a single-host cassette keeps its one URL as before.
extension CassetteInfo {
    /// The upstream base URLs the cassette was recorded from, in the order first given.
    package var upstreams: [URL] {
        (upstream ?? "").split(separator: " ").compactMap { URL(string: String($0)) }
    }

    /// Whether the cassette was recorded from more than one upstream.
    package var isMultiHost: Bool {
        upstreams.count > 1 || matchingRules.includeHost
    }

    /// The `upstream` column after a recording from `added`: the known upstreams first, in their
    /// order, then the new ones; an upstream given again with another base path replaces the old.
    package static func upstreamColumn(known: [URL], adding added: [URL]) -> String {
        var merged = known
        for url in added {
            if let index = merged.firstIndex(where: { Self.origin(of: $0) == Self.origin(of: url) }) {
                merged[index] = url
            } else {
                merged.append(url)
            }
        }
        return merged.map(\.absoluteString).joined(separator: " ")
    }

    /// `scheme://host[:port]` of `url` as keys spell it (default port left out, host lower-cased).
    package static func origin(of url: URL) -> String? {
        URLNormalizer.normalize(target: url.absoluteString).origin
    }
}
