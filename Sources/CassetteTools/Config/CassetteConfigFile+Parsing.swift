import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

extension CassetteConfigFile {
    static let fileKeys = [
        "database", "environments", "ignoredQueryParameters", "ignoredBodyFields", "matchBodies", "matchHeaders",
        "redact", "host", "port", "upstreamTimeout", "durability", "maxAge", "stale", "trackUsage", "rewriteURLs", "rewriteBodyURLs",
    ]
    static let environmentKeys = ["upstream", "tls"]
    static let tlsKeys = ["cacert", "cert", "key", "insecure"]
    static let redactKeys = ["headers", "queryParameters", "jsonFields"]

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
            databasePath = Self.resolve(try reader.nonEmptyString(value, at: "database"), relativeToFileAt: source)
        }
        if let value = object["environments"] {
            let table = try reader.object(value, at: "environments", keys: nil)
            for (name, entry) in table.members {
                let path = "environments.\(name)"
                guard !name.isEmpty else {
                    throw ConfigError(source: source, key: path, problem: "an environment needs a name", accepted: "names such as \"dev\" or \"staging\"")
                }
                let fields = try reader.object(entry, at: path, keys: Self.environmentKeys)
                guard let upstream = fields["upstream"] else {
                    throw ConfigError(source: source, key: path, problem: "has no \"upstream\"", accepted: "{\"upstream\": \"http://127.0.0.1:8081\"}")
                }
                environments[name] = try reader.httpURL(upstream, at: "\(path).upstream")
                if let tls = fields["tls"] {
                    environmentTLS[name] = try Self.tls(tls, at: "\(path).tls", reader: reader)
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
        matchingRules = rules
        matchingRulesAreExplicit = ["ignoredQueryParameters", "ignoredBodyFields", "matchBodies", "matchHeaders"].contains { object[$0] != nil }

        if let value = object["redact"] {
            let lists = try reader.object(value, at: "redact", keys: Self.redactKeys)
            var extra: [String: [String]] = [:]
            for (key, list) in lists.members {
                extra[key] = try reader.strings(list, at: "redact.\(key)")
            }
            redactor = Redactor(
                extraHeaderNames: extra["headers"] ?? [],
                extraQueryParameters: extra["queryParameters"] ?? [],
                extraJSONFields: extra["jsonFields"] ?? []
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

    /// `{"cacert": "ca.pem", "cert": "client.pem", "key": "client.key", "insecure": false}`, paths
    /// relative to the file.
    private static func tls(_ value: JSONValue, at path: String, reader: ConfigReader) throws(ConfigError) -> TLSConfiguration {
        let fields = try reader.object(value, at: path, keys: tlsKeys)
        var tls = TLSConfiguration()
        let source = reader.source
        func file(_ key: String) throws(ConfigError) -> String? {
            guard let value = fields[key] else { return nil }
            return resolve(try reader.nonEmptyString(value, at: "\(path).\(key)"), relativeToFileAt: source)
        }
        tls.additionalCACertificatesPath = try file("cacert")
        tls.clientCertificatePath = try file("cert")
        tls.clientKeyPath = try file("key")
        if let value = fields["insecure"] {
            tls.insecure = try reader.bool(value, at: "\(path).insecure")
        }
        if tls.clientKeyPath != nil && tls.clientCertificatePath == nil {
            throw ConfigError(
                source: source, key: "\(path).key", problem: "needs \"cert\" (the client certificate it belongs to)",
                accepted: "{\"cert\": \"client.pem\", \"key\": \"client.key\"}")
        }
        return tls
    }

    /// `database` relative to the configuration file's directory.
    private static func resolve(_ path: String, relativeToFileAt source: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        let directory = (source as NSString).deletingLastPathComponent
        guard !directory.isEmpty, directory != "." else { return path }
        return (directory as NSString).appendingPathComponent(path)
    }
}

/// Typed reads of configuration values; every failure names the file, the key path and what fits.
struct ConfigReader {
    package let source: String

    /// An object; with `keys`, any other member is an error that lists the accepted ones.
    func object(_ value: JSONValue, at path: String?, keys: [String]?) throws(ConfigError) -> JSONObject {
        guard case .object(let object) = value else {
            throw ConfigError(
                source: source, key: path, problem: "is \(describe(value)), not an object",
                accepted: path == nil ? "a JSON object such as {\"database\": \"cassettes.db\"}" : "a JSON object")
        }
        if let keys {
            for key in object.keys where !keys.contains(key) {
                let keyPath = path.map { "\($0).\(key)" } ?? key
                throw ConfigError(source: source, key: keyPath, problem: "is not a configuration key", accepted: keys.joined(separator: ", "))
            }
        }
        return object
    }

    func nonEmptyString(_ value: JSONValue, at path: String) throws(ConfigError) -> String {
        guard case .string(let text) = value, !text.isEmpty else {
            throw ConfigError(source: source, key: path, problem: "is \(describe(value)), not a non-empty string", accepted: "a string")
        }
        return text
    }

    func strings(_ value: JSONValue, at path: String) throws(ConfigError) -> [String] {
        guard case .array(let elements) = value else {
            throw ConfigError(
                source: source, key: path, problem: "is \(describe(value)), not an array of strings", accepted: "an array such as [\"_\", \"cb\"]")
        }
        var result: [String] = []
        for (index, element) in elements.enumerated() {
            guard case .string(let text) = element, !text.isEmpty else {
                throw ConfigError(
                    source: source, key: "\(path)[\(index)]", problem: "is \(describe(element)), not a non-empty string",
                    accepted: "an array of names such as [\"_\", \"cb\"]")
            }
            result.append(text)
        }
        return result
    }

    func bool(_ value: JSONValue, at path: String) throws(ConfigError) -> Bool {
        guard case .bool(let flag) = value else {
            throw ConfigError(source: source, key: path, problem: "is \(describe(value)), not a boolean", accepted: "true or false")
        }
        return flag
    }

    /// A number of seconds within `range` (fractions allowed).
    func seconds(_ value: JSONValue, at path: String, range: ClosedRange<Double>) throws(ConfigError) -> Duration {
        let number: Double? =
            switch value {
            case .integer(let integer): Double(integer)
            case .number(let double): double
            default: nil
            }
        guard let number, range.contains(number) else {
            throw ConfigError(
                source: source, key: path,
                problem:
                    "is \(describe(value)), not a number of seconds from \(CassetteConfigFile.plain(range.lowerBound)) to \(CassetteConfigFile.plain(range.upperBound))",
                accepted: "a number such as 30 or 0.5")
        }
        return Seconds(clamping: number).duration
    }

    package func port(_ value: JSONValue, at path: String) throws(ConfigError) -> Int {
        guard case .integer(let number) = value, (1...65535).contains(number) else {
            throw ConfigError(source: source, key: path, problem: "is \(describe(value)), not a port number", accepted: "an integer from 1 to 65535")
        }
        return Int(number)
    }

    func httpURL(_ value: JSONValue, at path: String) throws(ConfigError) -> URL {
        let accepted = "an http(s) URL such as \"http://127.0.0.1:8081\""
        guard case .string(let text) = value else {
            throw ConfigError(source: source, key: path, problem: "is \(describe(value)), not a string", accepted: accepted)
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host?.isEmpty == false
        else {
            throw ConfigError(source: source, key: path, problem: "\(describe(value)) is not an http or https URL", accepted: accepted)
        }
        return url
    }

    private func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): flag ? "true" : "false"
        case .integer, .bigInteger, .number: "the number \(value.compactJSON)"
        case .string(let text): text.count > 40 ? "the string \"\(text.prefix(40))…\"" : "the string \"\(text)\""
        case .array: "an array"
        case .object: "an object"
        }
    }
}
