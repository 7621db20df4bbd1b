import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `cassette config`: the settings every command would use, after the file and the flags.
struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Check the configuration file and print the settings commands would use.",
        discussion: CassetteConfigFile.fileFormatHelp + """


            The redaction lists printed include the built-in ones. With --env NAME, also prints that \
            environment's upstream and the cassette it records into (an unknown NAME is an error that \
            lists the configured ones).

            Examples:
              cassette config
              cassette config --config ci/cassette.json --env staging
              cassette config --json
            """
    )

    @OptionGroup var store: StoreOptions

    @Option(help: ArgumentHelp("An environment from the configuration file whose upstream to print.", valueName: "name"))
    var env: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() async throws {
        let configFile = try store.loadConfig()
        let upstream = try env.map { name throws(CLIError) in try configFile.upstream(forEnvironment: name) }
        let cassette = store.cassetteName(environment: env)
        if json {
            var value = Self.json(configFile)
            if case .object(var object) = value {
                object["cassette"] = .string(cassette)
                if let env, let upstream {
                    object["env"] = .string(env)
                    object["upstream"] = .string(upstream.absoluteString)
                }
                value = .object(object)
            }
            Terminal.printLine(value.prettyJSON)
            return
        }
        func list(_ names: some Collection<String>) -> String {
            names.isEmpty ? "none" : names.sorted().joined(separator: ", ")
        }
        let rules = configFile.matchingRules
        var rows: [(String, String)] = [
            ("configuration file", configFile.source ?? "none (\(CassetteConfigFile.defaultFileName) not found; defaults)"),
            ("database", configFile.databasePath),
            ("proxy listens on", "\(configFile.host):\(configFile.port)"),
        ]
        let names = configFile.environments.keys.sorted()
        rows +=
            names.isEmpty
            ? [("environments", "none")]
            : names.map { name in
                let upstreams = configFile.environmentUpstreams[name]?.map { "\($0.name) \($0.url.absoluteString)" }
                return ("environment \(name)", upstreams?.joined(separator: ", ") ?? configFile.environments[name]!.absoluteString)
            }
        rows += [
            ("ignored query parameters", list(rules.ignoredQueryParameters)),
            ("ignored body fields", list(rules.ignoredBodyFields)),
            ("match bodies", rules.includeBodyFingerprint ? "yes" : "no"),
            ("matched headers", list(rules.matchedHeaders)),
            ("upstream timeout", "\(ConfigReader.plain(Self.seconds(configFile.upstreamTimeout ?? CassetteConfigFile.defaultUpstreamTimeout))) s"),
            ("durability", configFile.durability.rawValue),
            ("redacted headers", list(configFile.redactor.headerNames)),
            ("redacted query parameters", list(configFile.redactor.queryParameters)),
            ("redacted JSON fields", list(configFile.redactor.jsonFields)),
            ("redacted cookies", configFile.redactor.cookies == .all ? "all" : "secret-looking (session ids and other credentials)"),
            ("cassette", cassette),
            ("replay max age", configFile.maxAgeDays.map { "\($0) days (stale recordings: \(configFile.stale.rawValue))" } ?? "none"),
            ("replay tracks usage", configFile.trackUsage ? "yes" : "no"),
            ("rewrite upstream URLs", configFile.rewritesURLs ? (configFile.rewritesBodyURLs ? "headers and JSON bodies" : "headers") : "no"),
        ]
        if let env, let upstream {
            rows.append(("upstream", "\(upstream.absoluteString) (environment \(env))"))
        }
        let width = rows.map(\.0.count).max() ?? 0
        for (label, value) in rows {
            Terminal.printLine(label + ":" + String(repeating: " ", count: width - label.count + 2) + value)
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func tlsJSON(_ tls: TLSConfiguration) -> JSONValue {
        var settings = JSONObject()
        if let path = tls.additionalCACertificatesPath { settings["cacert"] = .string(path) }
        if let path = tls.clientCertificatePath { settings["cert"] = .string(path) }
        if let path = tls.clientKeyPath { settings["key"] = .string(path) }
        settings["insecure"] = .bool(tls.insecure)
        return .object(settings)
    }

    static func json(_ configFile: CassetteConfigFile) -> JSONValue {
        func strings(_ names: some Collection<String>) -> JSONValue {
            .array(names.sorted().map(JSONValue.string))
        }
        let environments = JSONObject(
            configFile.environments.keys.sorted().map { name in
                var environment: JSONObject = ["upstream": .string(configFile.environments[name]!.absoluteString)]
                if let tls = configFile.environmentTLS[name] {
                    environment["tls"] = tlsJSON(tls)
                }
                if let upstreams = configFile.environmentUpstreams[name] {
                    environment["upstreams"] = .object(
                        JSONObject(
                            upstreams.map { upstream in
                                var entry: JSONObject = ["upstream": .string(upstream.url.absoluteString)]
                                if let port = upstream.port { entry["port"] = .integer(Int64(port)) }
                                if let tls = upstream.tls { entry["tls"] = tlsJSON(tls) }
                                return (upstream.name, .object(entry))
                            }))
                }
                return (name, .object(environment))
            })
        return [
            "configFile": configFile.source.map(JSONValue.string) ?? .null,
            "database": .string(configFile.databasePath),
            "host": .string(configFile.host),
            "maxAge": configFile.maxAgeDays.map { .integer(Int64($0)) } ?? .null,
            "stale": .string(configFile.stale.rawValue),
            "trackUsage": .bool(configFile.trackUsage),
            "rewriteURLs": .bool(configFile.rewritesURLs),
            "rewriteBodyURLs": .bool(configFile.rewritesBodyURLs),
            "port": .integer(Int64(configFile.port)),
            "environments": .object(environments),
            "ignoredQueryParameters": strings(configFile.matchingRules.ignoredQueryParameters),
            "ignoredBodyFields": strings(configFile.matchingRules.ignoredBodyFields),
            "matchBodies": .bool(configFile.matchingRules.includeBodyFingerprint),
            "matchHeaders": strings(configFile.matchingRules.matchedHeaders),
            "upstreamTimeout": .number(seconds(configFile.upstreamTimeout ?? CassetteConfigFile.defaultUpstreamTimeout)),
            "durability": .string(configFile.durability.rawValue),
            "redact": [
                "headers": strings(configFile.redactor.headerNames),
                "queryParameters": strings(configFile.redactor.queryParameters),
                "jsonFields": strings(configFile.redactor.jsonFields),
                "cookies": .string(configFile.redactor.cookies.rawValue),
            ],
        ]
    }
}
