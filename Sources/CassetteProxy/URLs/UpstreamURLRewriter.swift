import CassetteTools
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
/// `https://api.example.com/v2` becomes `http://127.0.0.1:8080/users?page=2`.
struct UpstreamURLRewriter: Sendable {
    let rewritesBodies: Bool
    private let scheme: String
    private let host: String
    private let port: Int
    private let pathPrefix: String
    /// The spellings of the upstream's base a body may contain: with and without the default
    /// port, with `/` and with JSON's escaped `\/`.
    private let bodyBases: [[UInt8]]

    /// `nil` for an upstream that is not an absolute http(s) URL (nothing can lead back to it).
    init?(upstream: URL, rewritesBodies: Bool) {
        guard let scheme = upstream.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = upstream.host(percentEncoded: true)?.lowercased(), !host.isEmpty
        else { return nil }
        self.rewritesBodies = rewritesBodies
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

    // MARK: One URL

    /// `url` pointing at `proxyBase` (`http://HOST:PORT`), or `nil` when it does not lead back to
    /// the upstream.
    func rewritten(_ url: Substring, proxyBase: String) -> String? {
        if url.hasPrefix("/"), !url.hasPrefix("//") { return rewritten(rootRelative: url) }
        guard let schemeEnd = url.range(of: "://"), url[..<schemeEnd.lowerBound].lowercased() == scheme else { return nil }
        let afterScheme = url[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? afterScheme.endIndex
        let authority = afterScheme[..<authorityEnd]
        guard !authority.contains("@"), Self.hostAndPort(authority, scheme: scheme).map({ $0.host == host && $0.port == port }) == true else { return nil }
        var rest = afterScheme[authorityEnd...]
        if !pathPrefix.isEmpty {
            guard rest.hasPrefix(pathPrefix) else { return nil }
            rest = rest.dropFirst(pathPrefix.count)
            guard rest.isEmpty || rest.first == "/" || rest.first == "?" || rest.first == "#" else { return nil }
        }
        if rest.first != "/" { rest = "/" + rest }
        return proxyBase + rest
    }

    /// A root-relative URL (`/v1/items`) of an upstream with a path prefix (`/v1`): the client
    /// resolves it against the proxy, which serves the prefix at its root, so the prefix goes
    /// (`/items`); otherwise following it would ask the upstream for `/v1/v1/items`.
    private func rewritten(rootRelative url: Substring) -> String? {
        guard !pathPrefix.isEmpty, url.hasPrefix(pathPrefix) else { return nil }
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
    func rewritten(_ fields: HTTPFields, proxyBase: String) -> HTTPFields? {
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
    func rewrittenBody(_ body: some Collection<UInt8>, fields: HTTPFields, proxyBase: String) -> [UInt8]? {
        guard rewritesBodies, Self.isJSON(fields[.contentType]) else { return nil }
        let bytes = Array(body)
        let plainBase = Array(proxyBase.utf8)
        let escapedBase = Array(proxyBase.replacingOccurrences(of: "/", with: "\\/").utf8)
        var output: [UInt8] = []
        var index = 0
        var copied = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "h"), let (length, escaped) = baseMatch(in: bytes, at: index) {
                output += bytes[copied..<index]
                output += escaped ? escapedBase : plainBase
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

    /// The length of the upstream base at `index` when a URL boundary follows it, and whether it
    /// was spelled with JSON's `\/`.
    private func baseMatch(in bytes: [UInt8], at index: Int) -> (Int, Bool)? {
        for base in bodyBases where bytes.count - index >= base.count && bytes[index..<(index + base.count)].elementsEqual(base) {
            let next = index + base.count
            let boundary =
                next == bytes.count || [UInt8(ascii: "/"), UInt8(ascii: "\\"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "\"")].contains(bytes[next])
            if boundary { return (base.count, base.contains(UInt8(ascii: "\\"))) }
        }
        return nil
    }

    private static func isJSON(_ contentType: String?) -> Bool {
        guard let type = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() else { return false }
        return type == "application/json" || type.hasSuffix("+json")
    }
}
