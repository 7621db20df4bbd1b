import Foundation
import WellPlateCore
import WellPlateNetworking

/// The configuration file (`cassette.json`) every `cassette` command reads: built-in defaults, then
/// the file; command-line flags are applied to the loaded value by the commands (`StoreOptions`,
/// `ProxyFlags`). Not the proxy's server settings (`ProxySettings`).
///
/// The file is `--config PATH` (which must exist), else `cassette.json` in the working directory
/// when present. Every key is optional; unknown keys and wrong types are errors naming the file and
/// the key path:
///
/// ```json
/// {
///   "database": "cassettes.db",
///   "environments": {
///     "dev": {"upstream": "http://127.0.0.1:8081"},
///     "staging": {"upstream": "https://staging-api.example.com", "tls": {"cacert": "corp-ca.pem"}}
///   },
///   "upstreamTimeout": 30,
///   "durability": "normal",
///   "ignoredQueryParameters": ["_", "cb", "timestamp"],
///   "ignoredBodyFields": [],
///   "matchBodies": true,
///   "matchHeaders": ["Accept-Language"],
///   "graphql": {"paths": ["/graphql"]},
///   "redact": {"headers": ["X-Session"], "queryParameters": ["session"], "jsonFields": ["ssn"], "cookies": "all"},
///   "host": "127.0.0.1",
///   "port": 8080
/// }
/// ```
///
/// A relative `database` path is resolved against the directory of the file that names it, so
/// `--config project/cassette.json` finds `project/cassettes.db` from anywhere.
package struct CassetteConfigFile: Sendable, Equatable {
    package static let defaultFileName = "cassette.json"
    static let defaultHost = "127.0.0.1"
    static let defaultPort = 8080
    /// The cassette used when neither `--cassette` nor `--env` names one.
    package static let defaultCassetteName = "dev"

    /// The cassette store; `--db` overrides it.
    package var databasePath: String = CassetteStore.defaultPath
    /// Upstream base URLs by environment name (`dev`, `staging`, ...).
    package var environments: [String: URL] = [:]
    /// The `"upstreams"` of the environments that list several hosts, in the file's order; such
    /// an environment's entry in `environments` is its first upstream.
    package var environmentUpstreams: [String: [EnvironmentUpstream]] = [:]
    /// Each environment's `"tls"` settings, paths resolved against the file.
    package var environmentTLS: [String: TLSConfiguration] = [:]
    /// `upstreamTimeout`: how long a forwarded request may take; `--upstream-timeout` overrides it.
    package var upstreamTimeout: Duration?
    package static let defaultUpstreamTimeout: Duration = .seconds(30)
    /// What `upstreamTimeout` and `--upstream-timeout` accept, in seconds.
    package static let upstreamTimeoutRange: ClosedRange<Double> = 0.1...3600
    /// `durability`: how far recordings survive; `--durability` overrides it.
    package var durability: CassetteStore.Durability = .normal
    /// How requests are keyed: `ignoredQueryParameters`, `ignoredBodyFields`, `matchHeaders`, and `matchBodies`
    /// as `includeBodyFingerprint`.
    package var matchingRules: MatchingRules = .default
    /// Whether the file set any matching key; otherwise a cassette keeps the rules it was recorded with.
    var matchingRulesAreExplicit = false

    /// The rules to impose on a cassette, or `nil` to use the ones saved with it.
    package var explicitMatchingRules: MatchingRules? {
        matchingRulesAreExplicit ? matchingRules : nil
    }
    /// The built-in redactions plus the file's `redact` lists.
    package var redactor: Redactor = .default
    /// Where the proxy listens.
    package var host: String = defaultHost
    package var port: Int = defaultPort
    /// `maxAge`, `stale` and `trackUsage`: see `FreshnessOptions`.
    package var maxAgeDays: Int?
    package var stale: StaleOption = .warn
    package var trackUsage = false
    /// `rewriteURLs` and `rewriteBodyURLs`: see `UpstreamURLRewriter`; `--no-rewrite-urls` and
    /// `--rewrite-body-urls` override them.
    package var rewritesURLs = true
    package var rewritesBodyURLs = false
    /// `"grpc": {"protosets": [...]}`: FileDescriptorSet files (paths relative to the file) whose
    /// descriptors decode and match gRPC messages, as `--protoset` gives them.
    package var protosets: [String] = []
    /// The file the settings came from; `nil` when no file was read.
    package var source: String?

    /// The upstream base URL configured for `environment`.
    package func upstream(forEnvironment environment: String) throws(CLIError) -> URL {
        if let url = environments[environment] { return url }
        let file = source ?? Self.defaultFileName
        guard !environments.isEmpty else {
            throw CLIError.usage(
                "no environments are configured, so '\(environment)' has no upstream; add \"environments\": {\"\(environment)\": {\"upstream\": \"http://...\"}} to \(file) or pass --upstream URL"
            )
        }
        let known = environments.keys.sorted().joined(separator: ", ")
        throw CLIError.usage(
            "unknown environment '\(environment)' (configured in \(file): \(known)); pick one of them, add it to \(file) or pass --upstream URL")
    }

    /// Reads the configuration file: `explicitPath` (which must exist), else `cassette.json` in the
    /// working directory if there is one, else the defaults.
    package static func load(explicitPath: String?) throws(CLIError) -> CassetteConfigFile {
        let path: String
        if let explicitPath {
            guard FileManager.default.fileExists(atPath: explicitPath) else {
                throw CLIError.usage("the configuration file \(explicitPath) does not exist; create it or pass the right --config path")
            }
            path = explicitPath
        } else if FileManager.default.fileExists(atPath: defaultFileName) {
            path = defaultFileName
        } else {
            return CassetteConfigFile()
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CLIError.usage("cannot read the configuration file \(path) (\(error.localizedDescription)); check its permissions")
        }
        do {
            return try CassetteConfigFile(parsing: data, source: path)
        } catch {
            throw CLIError.usage(error.description)
        }
    }

    /// The help text that documents the file, shared by `cassette --help` and `cassette config --help`.
    package static let fileFormatHelp = """
        Configuration file: cassette.json in the working directory (or --config PATH). Every key is \
        optional; flags override it. A relative "database" is resolved against the file's directory.
          {
            "database": "cassettes.db",
            "environments": {
              "dev": {"upstream": "http://127.0.0.1:8081"},
              "app": {"upstreams": {
                "api": {"upstream": "https://api.example.com", "port": 8080},
                "auth": {"upstream": "https://auth.example.com",
                         "tls": {"cacert": "auth-ca.pem"}}
              }},
              "staging": {
                "upstream": "https://staging-api.example.com",
                "tls": {"cacert": "corp-ca.pem", "cert": "client.pem",
                        "key": "client.key", "insecure": false}
              }
            },
            "upstreamTimeout": 30,
            "durability": "normal",
            "ignoredQueryParameters": ["_", "cb", "timestamp"],
            "ignoredBodyFields": [],
            "matchBodies": true,
            "matchHeaders": ["Accept", "Accept-Language"],
            "graphql": {"paths": ["/graphql"]},
            "redact": {
              "headers": ["X-Session"],
              "queryParameters": ["session"],
              "jsonFields": ["ssn"],
              "cookies": "secret-looking"
            },
            "host": "127.0.0.1",
            "port": 8080,
            "maxAge": 90,
            "stale": "warn",
            "trackUsage": false,
            "rewriteURLs": true,
            "rewriteBodyURLs": false
          }

        Defaults: database cassettes.db, host 127.0.0.1, port 8080, upstream timeout 30 s, bodies matched, nothing ignored, \
        the built-in redactions (Authorization, session cookies, API keys, tokens, passwords) always on, no \
        maximum age.

        "redact.cookies": "secret-looking" (default) replaces the values of cookies \
        named or shaped like credentials and keeps the rest; "all" replaces every cookie value.

        "tls" paths are resolved against the file's directory too; "cacert" is trusted \
        in addition to the system's CAs. "upstreams": one listener per host, each with its own "port" and "tls". \
        "upstreamTimeout" is in seconds (0.1 to 3600). "durability" (normal or \
        full) is what --durability defaults to. "matchHeaders" \
        puts those request headers in the key (see docs/matching.md). "maxAge" (days), "stale" (warn \
        or fail) and "trackUsage" are what replay's --max-age, --stale and --track-usage default to. \
        "rewriteURLs" (default true) points upstream URLs in Location, Content-Location, Link and \
        Refresh at the proxy; "rewriteBodyURLs" (default false) also in JSON bodies (docs/urls.md).

        "graphql": {"paths": [...]} (default ["/graphql"]): requests to those paths that carry a \
        GraphQL operation are keyed by operation and variables; --graphql-path overrides it \
        (docs/graphql.md).
        """
}
