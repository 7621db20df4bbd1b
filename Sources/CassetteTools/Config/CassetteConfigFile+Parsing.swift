import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

extension CassetteConfigFile {
    static let fileKeys = [
        "database", "environments", "ignoredQueryParameters", "ignoredBodyFields", "matchBodies", "matchHeaders",
        "redact", "host", "port", "upstreamTimeout", "durability", "maxAge", "stale", "trackUsage", "rewriteURLs", "rewriteBodyURLs", "graphql",
        "grpc",
    ]
    static let environmentKeys = ["upstream", "upstreams", "tls"]
    static let redactKeys = ["headers", "queryParameters", "jsonFields", "cookies"]
    static let graphQLKeys = ["paths"]
    static let grpcKeys = ["protosets"]

    /// Parses the text of a configuration file; `source` (its path) is named in every error.
    init(parsing data: Data, source: String) throws(ConfigError) {
        let root: JSONValue
        do {
            root = try JSONValue(parsing: data)
        } catch {
            throw ConfigError(
                source: source, key: nil, problem: "is not valid JSON: \(error.description)", accepted: "a JSON object such as {\"database\": \"cassettes.db\"}"
            )
        }
        let reader = ConfigReader(source: source)
        let object = try reader.object(root, at: nil, keys: Self.fileKeys)
        self.init()
        self.source = source

        if let value = object["database"] {
            databasePath = ConfigReader.resolve(try reader.nonEmptyString(value, at: "database"), relativeToFileAt: source)
        }
        if let value = object["environments"] {
            let table = try reader.object(value, at: "environments", keys: nil)
            for (name, entry) in table.members {
                let path = "environments.\(name)"
                guard !name.isEmpty else {
                    throw ConfigError(source: source, key: path, problem: "an environment needs a name", accepted: "names such as \"dev\" or \"staging\"")
                }
                let fields = try reader.object(entry, at: path, keys: Self.environmentKeys)
                if let upstreams = fields["upstreams"] {
                    guard fields["upstream"] == nil else {
                        throw ConfigError(
                            source: source, key: path, problem: "has both \"upstream\" and \"upstreams\"",
                            accepted: "one of them: \"upstreams\" lists every host, each with its \"upstream\"")
                    }
                    let entries = try EnvironmentUpstream.parse(upstreams, at: "\(path).upstreams", reader: reader)
                    environmentUpstreams[name] = entries
                    environments[name] = entries[0].url
                } else {
                    guard let upstream = fields["upstream"] else {
                        throw ConfigError(source: source, key: path, problem: "has no \"upstream\"", accepted: "{\"upstream\": \"http://127.0.0.1:8081\"}")
                    }
                    environments[name] = try reader.httpURL(upstream, at: "\(path).upstream")
                }
                if let tls = fields["tls"] {
                    environmentTLS[name] = try reader.tls(tls, at: "\(path).tls")
                }
            }
        }
        var rules = MatchingRules.default
        if let value = object["ignoredQueryParameters"] {
            rules.ignoredQueryParameters = Set(try reader.strings(value, at: "ignoredQueryParameters"))
        }
        if let value = object["ignoredBodyFields"] {
            rules.ignoredBodyFields = Set(try reader.strings(value, at: "ignoredBodyFields"))
        }
        if let value = object["matchBodies"] {
            rules.includeBodyFingerprint = try reader.bool(value, at: "matchBodies")
        }
        if let value = object["matchHeaders"] {
            let names = try reader.strings(value, at: "matchHeaders")
            for (index, name) in names.enumerated() where HTTPField.Name(name) == nil {
                throw ConfigError(
                    source: source, key: "matchHeaders[\(index)]", problem: "\"\(name)\" is not a header name",
                    accepted: "names such as \"Accept\" or \"Accept-Language\"")
            }
            rules.matchedHeaders = Set(names)
        }
        if let value = object["graphql"] {
            let fields = try reader.object(value, at: "graphql", keys: Self.graphQLKeys)
            if let paths = fields["paths"] {
                rules.graphQLPaths = Set(try Self.graphQLPaths(try reader.strings(paths, at: "graphql.paths"), source: source))
            }
        }
        if let value = object["grpc"] {
            let fields = try reader.object(value, at: "grpc", keys: Self.grpcKeys)
            if let paths = fields["protosets"] {
                // Relative to the file, as a project's cassette.json names its own protosets.
                let base = URL(fileURLWithPath: source).deletingLastPathComponent()
                protosets = try reader.strings(paths, at: "grpc.protosets").map { path in
                    path.hasPrefix("/") ? path : base.appendingPathComponent(path).path
                }
            }
        }
        matchingRules = rules
        matchingRulesAreExplicit = ["ignoredQueryParameters", "ignoredBodyFields", "matchBodies", "matchHeaders", "graphql"].contains {
            object[$0] != nil
        }

        if let value = object["redact"] {
            let lists = try reader.object(value, at: "redact", keys: Self.redactKeys)
            var extra: [String: [String]] = [:]
            var cookies = CookieRedaction.secretLooking
            for (key, member) in lists.members {
                if key == "cookies" {
                    guard case .string(let text) = member, let choice = CookieRedaction(rawValue: text) else {
                        throw ConfigError(
                            source: source, key: "redact.cookies", problem: "is \(member.compactJSON)",
                            accepted: "\"secret-looking\" (the default: session ids and other credentials) or \"all\" (every cookie value)")
                    }
                    cookies = choice
                    continue
                }
                extra[key] = try reader.strings(member, at: "redact.\(key)")
            }
            redactor = Redactor(
                extraHeaderNames: extra["headers"] ?? [],
                extraQueryParameters: extra["queryParameters"] ?? [],
                extraJSONFields: extra["jsonFields"] ?? [],
                cookies: cookies
            )
        }
        if let value = object["host"] {
            host = try reader.nonEmptyString(value, at: "host")
        }
        if let value = object["port"] {
            port = try reader.port(value, at: "port")
        }
        if let value = object["maxAge"] {
            guard case .integer(let days) = value, days >= 0, days <= 100_000 else {
                throw ConfigError(source: source, key: "maxAge", problem: "is \(value.compactJSON), not a number of days", accepted: "an integer such as 90")
            }
            maxAgeDays = Int(days)
        }
        if let value = object["stale"] {
            guard case .string(let text) = value, let policy = StaleOption(rawValue: text) else {
                throw ConfigError(source: source, key: "stale", problem: "is \(value.compactJSON)", accepted: "\"warn\" or \"fail\"")
            }
            stale = policy
        }
        if let value = object["trackUsage"] {
            trackUsage = try reader.bool(value, at: "trackUsage")
        }
        if let value = object["rewriteURLs"] {
            rewritesURLs = try reader.bool(value, at: "rewriteURLs")
        }
        if let value = object["rewriteBodyURLs"] {
            rewritesBodyURLs = try reader.bool(value, at: "rewriteBodyURLs")
        }
        if let value = object["durability"] {
            guard case .string(let text) = value, let option = DurabilityOption(rawValue: text) else {
                throw ConfigError(source: source, key: "durability", problem: "is \(value.compactJSON)", accepted: "\"normal\" or \"full\"")
            }
            durability = option.durability
        }
        if let value = object["upstreamTimeout"] {
            upstreamTimeout = try reader.seconds(value, at: "upstreamTimeout", range: Self.upstreamTimeoutRange)
        }
    }

    /// GraphQL paths as keys spell paths (normalized), each starting with `/`.
    package static func graphQLPaths(_ paths: [String], source: String) throws(ConfigError) -> [String] {
        try paths.enumerated().map { (index, path) throws(ConfigError) -> String in
            guard path.hasPrefix("/"), !path.contains("?") else {
                throw ConfigError(
                    source: source, key: "graphql.paths[\(index)]", problem: "\"\(path)\" is not a path",
                    accepted: "paths such as \"/graphql\" (no host, no query)")
            }
            return URLNormalizer.normalize(target: path).path
        }
    }
}
