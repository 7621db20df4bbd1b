import ArgumentParser
import Foundation
import WellPlateNetworking

/// `cassette config`: the settings every command would use, after the file and the flags.
struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Check the configuration file and print the settings commands would use.",
        discussion: ProxyConfig.fileFormatHelp + """


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
        let settings = try store.loadConfig()
        let upstream = try env.map { name throws(CLIError) in try settings.upstream(forEnvironment: name) }
        let cassette = store.cassetteName(environment: env)
        if json {
            var value = Self.json(settings)
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
        let rules = settings.matchingRules
        var rows: [(String, String)] = [
            ("configuration file", settings.source ?? "none (\(ProxyConfig.defaultFileName) not found; defaults)"),
            ("database", settings.databasePath),
            ("proxy listens on", "\(settings.host):\(settings.port)"),
        ]
        let names = settings.environments.keys.sorted()
        rows += names.isEmpty
            ? [("environments", "none")]
            : names.map { ("environment \($0)", settings.environments[$0]!.absoluteString) }
        rows += [
            ("ignored query parameters", list(rules.ignoredQueryParameters)),
            ("ignored body fields", list(rules.ignoredBodyFields)),
            ("match bodies", rules.includeBodyFingerprint ? "yes" : "no"),
            ("redacted headers", list(settings.redactor.headerNames)),
            ("redacted query parameters", list(settings.redactor.queryParameters)),
            ("redacted JSON fields", list(settings.redactor.jsonFields)),
            ("cassette", cassette),
        ]
        if let env, let upstream {
            rows.append(("upstream", "\(upstream.absoluteString) (environment \(env))"))
        }
        let width = rows.map(\.0.count).max() ?? 0
        for (label, value) in rows {
            Terminal.printLine(label + ":" + String(repeating: " ", count: width - label.count + 2) + value)
        }
    }

    static func json(_ settings: ProxyConfig) -> JSONValue {
        func strings(_ names: some Collection<String>) -> JSONValue {
            .array(names.sorted().map(JSONValue.string))
        }
        let environments = JSONObject(settings.environments.keys.sorted().map { name in
            (name, ["upstream": .string(settings.environments[name]!.absoluteString)] as JSONValue)
        })
        return [
            "configFile": settings.source.map(JSONValue.string) ?? .null,
            "database": .string(settings.databasePath),
            "host": .string(settings.host),
            "port": .integer(Int64(settings.port)),
            "environments": .object(environments),
            "ignoredQueryParameters": strings(settings.matchingRules.ignoredQueryParameters),
            "ignoredBodyFields": strings(settings.matchingRules.ignoredBodyFields),
            "matchBodies": .bool(settings.matchingRules.includeBodyFingerprint),
            "redact": [
                "headers": strings(settings.redactor.headerNames),
                "queryParameters": strings(settings.redactor.queryParameters),
                "jsonFields": strings(settings.redactor.jsonFields),
            ],
        ]
    }
}
