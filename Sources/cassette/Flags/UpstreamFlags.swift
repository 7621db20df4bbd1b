import ArgumentParser
import CassetteProxy
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `--env NAME` or `--upstream URL`: where forwarded requests go.
struct UpstreamFlags: ParsableArguments {
    @Option(help: ArgumentHelp("An environment from the configuration file whose upstream to use; also the default cassette name.", valueName: "name"))
    var env: String?

    @Option(help: ArgumentHelp("The upstream base URL, without a configuration file (http://host:port[/base/path]).", valueName: "url"))
    var upstream: String?

    func validate() throws {
        if env != nil && upstream != nil {
            throw ValidationError("pass either --env or --upstream, not both")
        }
        if let upstream {
            _ = try Self.parseURL(upstream)
        }
    }

    /// The upstream named on the command line, if any.
    func resolve(_ configFile: CassetteConfigFile) throws -> URL? {
        if let upstream { return try Self.parseURL(upstream) }
        if let env { return try configFile.upstream(forEnvironment: env) }
        return nil
    }

    static func parseURL(_ text: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host?.isEmpty == false else {
            throw ValidationError("--upstream '\(text)' is not an http(s) URL such as http://127.0.0.1:8081")
        }
        return url
    }
}
