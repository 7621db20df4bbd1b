import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `--env NAME` or `--upstream URL` (repeatable): where forwarded requests go.
struct UpstreamFlags: ParsableArguments {
    @Option(help: ArgumentHelp("An environment from the configuration file whose upstream(s) to use; also the default cassette name.", valueName: "name"))
    var env: String?

    @Option(
        help: ArgumentHelp(
            "The upstream base URL, without a configuration file (http://host:port[/base/path]). Repeat it for an app that calls several hosts: one listener per upstream, in the order given, all recorded into one cassette.",
            valueName: "url"))
    var upstream: [String] = []

    func validate() throws {
        if env != nil && !upstream.isEmpty {
            throw ValidationError("pass either --env or --upstream, not both")
        }
        var origins: [String: String] = [:]
        for text in upstream {
            let url = try Self.parseURL(text)
            guard let origin = CassetteInfo.origin(of: url) else { continue }
            if let other = origins[origin] {
                throw ValidationError(
                    "--upstream \(other) and --upstream \(text) are the same host; give each host once (one listener per host), with the base path its requests share"
                )
            }
            origins[origin] = text
        }
    }

    /// Whether an upstream was named on the command line or by an environment.
    var isGiven: Bool { env != nil || !upstream.isEmpty }

    /// The upstream named on the command line, if any (the first, when several are).
    func resolve(_ configFile: CassetteConfigFile) throws -> URL? {
        if let first = upstream.first { return try Self.parseURL(first) }
        if let env { return try configFile.upstream(forEnvironment: env) }
        return nil
    }

    /// Every upstream named: the repeated `--upstream`s, or the environment's `"upstreams"` (its
    /// one upstream otherwise).
    func all(_ configFile: CassetteConfigFile) throws -> [URL] {
        if !upstream.isEmpty { return try upstream.map(Self.parseURL) }
        if let env, let entries = configFile.environmentUpstreams[env] { return entries.map(\.url) }
        return try resolve(configFile).map { [$0] } ?? []
    }

    /// Where the proxy forwards: `settings.upstream`, and every upstream in `settings.upstreams`
    /// when there are several (`--upstream` repeated, or the environment's `"upstreams"`, each with
    /// its `"tls"` on top of the environment's and `tlsFlags` on top of both).
    func apply(to settings: inout ProxySettings, configFile: CassetteConfigFile, tlsFlags: TLSConfiguration) throws {
        if upstream.count > 1 {
            let urls = try upstream.map(Self.parseURL)
            settings.upstreams = urls.map { ProxyUpstream(url: $0) }
            settings.upstream = urls[0]
        } else if let env, let entries = configFile.environmentUpstreams[env] {
            let environmentTLS = configFile.environmentTLS[env] ?? TLSConfiguration()
            settings.upstreams = entries.map { entry in
                ProxyUpstream(url: entry.url, port: entry.port, tls: environmentTLS.overriding(entry.tls ?? TLSConfiguration()).overriding(tlsFlags))
            }
            settings.upstream = entries[0].url
        } else {
            settings.upstream = try resolve(configFile)
        }
    }

    static func parseURL(_ text: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host?.isEmpty == false else {
            throw ValidationError("--upstream '\(text)' is not an http(s) URL such as http://127.0.0.1:8081")
        }
        return url
    }
}
