import CassetteKernel
import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

/// Absolute URLs that lead back to the upstream, served pointing at the proxy instead: a redirect's
/// `Location`, `Content-Location`, each `<...>` of a `Link` (pagination) and the `url=` of a
/// `Refresh`, so a client that follows them stays on the proxy, in record and in replay. With
/// `rewritesBodies`, the same URLs inside JSON bodies too. The store keeps what the upstream sent:
/// this only changes what is served.
///
/// A URL leads back to the upstream when it has the upstream's scheme, host (any case) and port
/// (explicit or default), and starts with the upstream's path prefix, if any; the proxy serves
/// that prefix at its root, so `https://api.example.com/v2/users?page=2` for the upstream
/// `https://api.example.com/v2` becomes `http://127.0.0.1:8080/users?page=2`. A proxy that fronts
/// several upstreams serves each one's URLs pointing at that upstream's own listener, so a redirect
/// from the API to the auth host stays inside the proxy.
package struct UpstreamURLRewriter: Sendable {
    package let rewritesBodies: Bool
    /// The upstreams whose URLs are served pointing at the proxy, in listener order (one for a
    /// single-host proxy); `nil` for one that is not an absolute http(s) URL.
    private let targets: [Target?]
    /// The target of the listener this rewriter serves: its URLs point at the address the client
    /// used; another target's at its own listener (`ports`), on the same host.
    private let own: Int
    private let ports: ListenerPorts?
    /// Every target's URLs point at the given base: for asking whether anything leads back at
    /// all, before the listeners' ports are known.
    private var pointsAllAtOneBase = false

    /// One upstream a URL may lead back to.
    private struct Target: Sendable {
        package let scheme: String
        package let host: String
        package let port: Int
        package let pathPrefix: String
        /// The spellings of the upstream's base a body may contain: with and without the default
        /// port, with `/` and with JSON's escaped `\/`.
        package let bodyBases: [[UInt8]]

        package init?(_ upstream: URL) {
            guard let scheme = upstream.scheme?.lowercased(), scheme == "http" || scheme == "https",
                let host = upstream.host(percentEncoded: true)?.lowercased(), !host.isEmpty
            else { return nil }
            self.scheme = scheme
            self.host = host
            let defaultPort = scheme == "https" ? 443 : 80
            port = upstream.port ?? defaultPort
            var prefix = upstream.path(percentEncoded: true)
            while prefix.hasSuffix("/") { prefix.removeLast() }
            pathPrefix = prefix
            let bracketed = host.contains(":") ? "[\(host)]" : host
            var bases = ["\(scheme)://\(bracketed):\(port)\(prefix)"]
            if port == defaultPort { bases.append("\(scheme)://\(bracketed)\(prefix)") }
            bodyBases = (bases + bases.map { $0.replacingOccurrences(of: "/", with: "\\/") }).map { Array($0.utf8) }
        }
    }

    /// `nil` for an upstream that is not an absolute http(s) URL (nothing can lead back to it).
    package init?(upstream: URL, rewritesBodies: Bool) {
        self.init(upstreams: [upstream], own: 0, ports: nil, rewritesBodies: rewritesBodies)
    }

    /// The rewriter of listener `own` of a proxy that fronts `upstreams`, one listener each, on
    /// `ports`; `nil` when none of them is an absolute http(s) URL.
    package init?(upstreams: [URL], own: Int, ports: ListenerPorts?, rewritesBodies: Bool) {
        let targets = upstreams.map(Target.init)
        guard targets.contains(where: { $0 != nil }) else { return nil }
        self.targets = targets
        self.own = own
        self.ports = ports
        self.rewritesBodies = rewritesBodies
    }

    /// Where target `index`'s URLs point for a client that reached this listener at `proxyBase`.
    private func base(of index: Int, proxyBase: String) -> String? {
        index == own || pointsAllAtOneBase ? proxyBase : ports?.base(of: index, reachedAt: proxyBase)
    }

    /// This rewriter with every upstream's URLs pointing at one base.
    package var pointingAllAtOneBase: UpstreamURLRewriter {
        var rewriter = self
        rewriter.pointsAllAtOneBase = true
        return rewriter
    }

    /// The targets in the order they are tried: this listener's own first.
    private var order: [Int] {
        [own] + targets.indices.filter { $0 != own }
    }

    // MARK: One URL

    /// `url` pointing at `proxyBase` (`http://HOST:PORT`), or at the listener of the upstream it
    /// leads to; `nil` when it leads to none of them.
    package func rewritten(_ url: Substring, proxyBase: String) -> String? {
        if url.hasPrefix("/"), !url.hasPrefix("//") { return rewritten(rootRelative: url) }
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        let afterScheme = url[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? afterScheme.endIndex
        let authority = afterScheme[..<authorityEnd]
        guard !authority.contains("@"), let (host, port) = Self.hostAndPort(authority, scheme: scheme) else { return nil }
        for index in order {
            guard let target = targets[index], target.scheme == scheme, target.host == host, target.port == port else { continue }
            var rest = afterScheme[authorityEnd...]
            if !target.pathPrefix.isEmpty {
                guard rest.hasPrefix(target.pathPrefix) else { continue }
                rest = rest.dropFirst(target.pathPrefix.count)
                guard rest.isEmpty || rest.first == "/" || rest.first == "?" || rest.first == "#" else { continue }
            }
            if rest.first != "/" { rest = "/" + rest }
            guard let base = base(of: index, proxyBase: proxyBase) else { return nil }
            return base + rest
        }
        return nil
    }

    /// A root-relative URL (`/v1/items`) of an upstream with a path prefix (`/v1`): the client
    /// resolves it against the proxy, which serves the prefix at its root, so the prefix goes
    /// (`/items`); otherwise following it would ask the upstream for `/v1/v1/items`.
    private func rewritten(rootRelative url: Substring) -> String? {
        guard let pathPrefix = targets[own]?.pathPrefix, !pathPrefix.isEmpty, url.hasPrefix(pathPrefix) else { return nil }
        let rest = url.dropFirst(pathPrefix.count)
        guard rest.isEmpty || rest.first == "/" || rest.first == "?" || rest.first == "#" else { return nil }
        return rest.first == "/" ? String(rest) : "/" + rest
    }

    private static func hostAndPort(_ authority: Substring, scheme: String) -> (host: String, port: Int)? {
        let defaultPort = scheme == "https" ? 443 : 80
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            let host = authority[authority.index(after: authority.startIndex)..<close].lowercased()
            let rest = authority[authority.index(after: close)...]
            if rest.isEmpty { return (host, defaultPort) }
            guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()) else { return nil }
            return (host, port)
        }
        guard let colon = authority.lastIndex(of: ":") else { return (authority.lowercased(), defaultPort) }
        let portText = authority[authority.index(after: colon)...]
        guard let port = portText.isEmpty ? defaultPort : Int(portText) else { return nil }
        return (authority[..<colon].lowercased(), port)
    }

    // MARK: Headers

    /// `fields` with their upstream URLs pointing at `proxyBase`, or `nil` when none does.
    package func rewritten(_ fields: HTTPFields, proxyBase: String) -> HTTPFields? {
        var result: HTTPFields?
        for (index, field) in fields.enumerated() where Self.mayLeadBack(field.name) {
            guard let value = rewrittenValue(field, proxyBase: proxyBase) else { continue }
            if result == nil { result = fields }
            result![index] = HTTPField(name: field.name, value: value)
        }
        return result
    }

    /// A string switch, not a set: every recording's headers are checked at start-up.
    private static func mayLeadBack(_ name: HTTPField.Name) -> Bool {
        switch name.canonicalName {
        case "location", "content-location", "link", "refresh": true
        default: false
        }
    }

    private func rewrittenValue(_ field: HTTPField, proxyBase: String) -> String? {
        let value = field.value[...]
        switch field.name.canonicalName {
        case "link":
            return rewrittenLink(value, proxyBase: proxyBase)
        case "refresh":
            // `5; url=https://...` (the URL may be quoted).
            guard let equals = value.range(of: "url=", options: .caseInsensitive) else { return nil }
            var url = value[equals.upperBound...]
            var quote: Character?
            if let first = url.first, first == "'" || first == "\"" {
                quote = first
                url = url.dropFirst()
            }
            let end = quote.flatMap { url.firstIndex(of: $0) } ?? url.endIndex
            guard let replaced = rewritten(url[..<end], proxyBase: proxyBase) else { return nil }
            return String(value[..<url.startIndex]) + replaced + value[end...]
        default:
            return rewritten(value.trimmingCharacters(in: .whitespaces)[...], proxyBase: proxyBase)
        }
    }

    /// Each `<URL>` of a `Link` value (RFC 8288); `nil` when none leads back to the upstream.
    private func rewrittenLink(_ value: Substring, proxyBase: String) -> String? {
        var output = ""
        var changed = false
        var rest = value
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            let url = rest[rest.index(after: open)..<close]
            output += rest[...open]
            if let replaced = rewritten(url, proxyBase: proxyBase) {
                output += replaced
                changed = true
            } else {
                output += url
            }
            output += ">"
            rest = rest[rest.index(after: close)...]
        }
        return changed ? output + rest : nil
    }

    // MARK: Bodies

    /// A JSON body (by `Content-Type`) with the upstream's URLs pointing at `proxyBase`, or `nil`
    /// when body rewriting is off, the body is not JSON or holds no such URL.
    package func rewrittenBody(_ body: some Collection<UInt8>, fields: HTTPFields, proxyBase: String) -> [UInt8]? {
        guard rewritesBodies, Self.isJSON(fields[.contentType]) else { return nil }
        let bytes = Array(body)
        // Each target's base as served, plain and with JSON's `\/`.
        let served: [(plain: [UInt8], escaped: [UInt8])?] = targets.indices.map { index in
            base(of: index, proxyBase: proxyBase).map { (Array($0.utf8), Array($0.replacingOccurrences(of: "/", with: "\\/").utf8)) }
        }
        var output: [UInt8] = []
        var index = 0
        var copied = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "h"), let (length, escaped, target) = baseMatch(in: bytes, at: index), let base = served[target] {
                output += bytes[copied..<index]
                output += escaped ? base.escaped : base.plain
                index += length
                copied = index
            } else {
                index += 1
            }
        }
        guard copied > 0 else { return nil }
        output += bytes[copied...]
        return output
    }

    /// The length of an upstream base at `index` when a URL boundary follows it, whether it was
    /// spelled with JSON's `\/`, and which target it is.
    private func baseMatch(in bytes: [UInt8], at index: Int) -> (Int, Bool, Int)? {
        for target in order {
            guard let bases = targets[target]?.bodyBases else { continue }
            for base in bases where bytes.count - index >= base.count && bytes[index..<(index + base.count)].elementsEqual(base) {
                let next = index + base.count
                let boundary =
                    next == bytes.count
                    || [UInt8(ascii: "/"), UInt8(ascii: "\\"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "\"")].contains(bytes[next])
                if boundary { return (base.count, base.contains(UInt8(ascii: "\\")), target) }
            }
        }
        return nil
    }

    private static func isJSON(_ contentType: String?) -> Bool {
        guard let type = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() else { return false }
        return type == "application/json" || type.hasSuffix("+json")
    }
}
