import Foundation
import WellPlateCore

extension AppConfig {
    /// Read from the working directory when no path is given and `WELLPLATE_CONFIG` is unset.
    public static let defaultFileName = "wellplate.json"

    static let fileKeys = [
        "environment", "mode", "mockMode", "enableLogging", "apiTimeout", "mockResponseDelay",
        "baseURL", "baseURLs", "cassettePath", "cassette", "fixturesDirectory", "tls", "transport", "proxy",
    ]

    /// Defaults, then the JSON file, then environment variables, then validation.
    ///
    /// The file is `path`, else `$WELLPLATE_CONFIG`, else `wellplate.json` if it exists. Variables:
    /// `WELLPLATE_ENVIRONMENT`, `WELLPLATE_MODE`, `WELLPLATE_MOCK_MODE`, `WELLPLATE_ENABLE_LOGGING`,
    /// `WELLPLATE_API_TIMEOUT`, `WELLPLATE_MOCK_RESPONSE_DELAY`, `WELLPLATE_BASE_URL` (or
    /// `API_BASE_URL`, which `cassette run` sets), `WELLPLATE_CASSETTE_PATH`, `WELLPLATE_CASSETTE`,
    /// `WELLPLATE_FIXTURES_DIRECTORY`.
    public static func load(
        from path: String? = nil,
        environmentVariables: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ConfigError) -> AppConfig {
        var config = AppConfig()
        var lastSource = "defaults"
        let explicitPath = path ?? environmentVariables["WELLPLATE_CONFIG"]
        if let explicitPath {
            guard FileManager.default.fileExists(atPath: explicitPath) else {
                throw ConfigError(
                    source: explicitPath, key: nil, problem: "the configuration file does not exist; create it or pass the right path", accepted: nil)
            }
            try config.apply(fileAt: explicitPath)
            lastSource = explicitPath
        } else if FileManager.default.fileExists(atPath: defaultFileName) {
            try config.apply(fileAt: defaultFileName)
            lastSource = defaultFileName
        }
        if let source = try config.apply(environmentVariables: environmentVariables) {
            lastSource = source
        }
        try config.validate(source: lastSource)
        return config
    }

    /// Applies the keys of one JSON configuration file.
    public mutating func apply(fileAt path: String) throws(ConfigError) {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigError(source: path, key: nil, problem: "cannot be read (\(error.localizedDescription)); check its permissions")
        }
        let root: JSONValue
        do {
            root = try JSONValue(parsing: data)
        } catch {
            throw ConfigError(
                source: path, key: nil, problem: "is not valid JSON (\(error))",
                accepted: "a JSON object such as {\"environment\": \"development\", \"mode\": \"live\"}")
        }
        guard case .object(let object) = root else {
            throw ConfigError(
                source: path, key: nil, problem: "must contain a JSON object at the top level", accepted: "{\"environment\": \"development\", ...}")
        }
        try apply(object, source: path)
    }

    package mutating func apply(_ object: JSONObject, source: String) throws(ConfigError) {
        for key in object.keys.sorted() where !Self.fileKeys.contains(key) {
            throw ConfigError(source: source, key: key, problem: "is not a configuration key", accepted: Self.fileKeys.joined(separator: ", "))
        }
        if object["mode"] != nil && object["mockMode"] != nil {
            throw ConfigError(
                source: source, key: "mockMode", problem: "cannot be combined with \"mode\"; keep one of them", accepted: "mode: \(ClientMode.acceptedNames)")
        }
        if let value = object["environment"] {
            environment = try Self.environment(from: value, source: source, key: "environment")
        }
        if let value = object["mode"] {
            mode = try Self.mode(from: value, source: source, key: "mode")
        }
        if let value = object["mockMode"] {
            mockMode = try Self.bool(from: value, source: source, key: "mockMode")
        }
        if let value = object["enableLogging"] {
            enableLogging = try Self.bool(from: value, source: source, key: "enableLogging")
        }
        if let value = object["apiTimeout"] {
            apiTimeout = try Self.seconds(from: value, source: source, key: "apiTimeout", allowZero: false)
        }
        if let value = object["mockResponseDelay"] {
            mockResponseDelay = try Self.seconds(from: value, source: source, key: "mockResponseDelay", allowZero: true)
        }
        if let value = object["baseURLs"] {
            guard case .object(let table) = value else {
                throw ConfigError(
                    source: source, key: "baseURLs", problem: "must be an object from environment name to URL",
                    accepted: "{\"development\": \"http://127.0.0.1:8081\"}")
            }
            for (name, entry) in table.sortedMembers {
                guard let env = Environment(name: name) else {
                    throw ConfigError(source: source, key: "baseURLs.\(name)", problem: "is not an environment", accepted: Environment.acceptedNames)
                }
                let url = try Self.url(from: entry, source: source, key: "baseURLs.\(name)")
                if env == environment { baseURLOverride = url }
            }
        }
        if let value = object["baseURL"] {
            baseURLOverride = try Self.url(from: value, source: source, key: "baseURL")
        }
        if let value = object["cassettePath"] {
            cassettePath = try Self.string(from: value, source: source, key: "cassettePath")
        }
        if let value = object["cassette"] {
            cassetteName = try Self.string(from: value, source: source, key: "cassette")
        }
        if let value = object["fixturesDirectory"] {
            fixturesDirectory = try Self.string(from: value, source: source, key: "fixturesDirectory")
        }
        if let value = object["tls"] {
            tls = try ConfigReader(source: source).tls(value, at: "tls")
        }
        if let value = object["transport"] {
            transport = try Self.transport(from: value, source: source, key: "transport")
        }
        if let value = object["proxy"] {
            proxy = try Self.url(from: value, source: source, key: "proxy")
        }
    }

    private static func transport(from value: JSONValue, source: String, key: String?) throws(ConfigError) -> TransportChoice {
        let accepted = TransportChoice.allCases.filter(\.isAvailable).map { "\"\($0.rawValue)\"" }.joined(separator: " or ")
        guard case .string(let name) = value, let choice = TransportChoice(rawValue: name.lowercased()) else {
            throw ConfigError(source: source, key: key, problem: "is \(describe(value))", accepted: accepted)
        }
        guard choice.isAvailable else {
            throw ConfigError(source: source, key: key, problem: "is \"\(name)\" but \(TransportChoice.unavailableMessage)", accepted: accepted)
        }
        return choice
    }

    /// Applies `WELLPLATE_*` overrides; returns the last variable used, for error messages.
    package mutating func apply(environmentVariables env: [String: String]) throws(ConfigError) -> String? {
        var last: String?
        func source(_ name: String) -> String {
            last = "environment variable \(name)"
            return last!
        }
        if let value = env["WELLPLATE_ENVIRONMENT"] {
            environment = try Self.environment(from: .string(value), source: source("WELLPLATE_ENVIRONMENT"), key: nil)
        }
        if let value = env["WELLPLATE_MODE"] {
            mode = try Self.mode(from: .string(value), source: source("WELLPLATE_MODE"), key: nil)
        }
        if let value = env["WELLPLATE_MOCK_MODE"] {
            mockMode = try Self.bool(from: .string(value), source: source("WELLPLATE_MOCK_MODE"), key: nil)
        }
        if let value = env["WELLPLATE_ENABLE_LOGGING"] {
            enableLogging = try Self.bool(from: .string(value), source: source("WELLPLATE_ENABLE_LOGGING"), key: nil)
        }
        if let value = env["WELLPLATE_API_TIMEOUT"] {
            apiTimeout = try Self.seconds(from: .string(value), source: source("WELLPLATE_API_TIMEOUT"), key: nil, allowZero: false)
        }
        if let value = env["WELLPLATE_MOCK_RESPONSE_DELAY"] {
            mockResponseDelay = try Self.seconds(from: .string(value), source: source("WELLPLATE_MOCK_RESPONSE_DELAY"), key: nil, allowZero: true)
        }
        for name in ["API_BASE_URL", "WELLPLATE_BASE_URL"] {
            if let value = env[name] {
                baseURLOverride = try Self.url(from: .string(value), source: source(name), key: nil)
            }
        }
        if let value = env["WELLPLATE_CASSETTE_PATH"] {
            cassettePath = try Self.string(from: .string(value), source: source("WELLPLATE_CASSETTE_PATH"), key: nil)
        }
        if let value = env["WELLPLATE_CASSETTE"] {
            cassetteName = try Self.string(from: .string(value), source: source("WELLPLATE_CASSETTE"), key: nil)
        }
        if let value = env["WELLPLATE_FIXTURES_DIRECTORY"] {
            fixturesDirectory = try Self.string(from: .string(value), source: source("WELLPLATE_FIXTURES_DIRECTORY"), key: nil)
        }
        return last
    }

    // MARK: Value parsing

    private static func environment(from value: JSONValue, source: String, key: String?) throws(ConfigError) -> Environment {
        guard case .string(let name) = value, let env = Environment(name: name) else {
            throw ConfigError(source: source, key: key, problem: "\(describe(value)) is not an environment", accepted: Environment.acceptedNames)
        }
        return env
    }

    private static func mode(from value: JSONValue, source: String, key: String?) throws(ConfigError) -> ClientMode {
        guard case .string(let name) = value, let mode = ClientMode(rawValue: name.lowercased()) else {
            throw ConfigError(source: source, key: key, problem: "\(describe(value)) is not a mode", accepted: ClientMode.acceptedNames)
        }
        return mode
    }

    private static func bool(from value: JSONValue, source: String, key: String?) throws(ConfigError) -> Bool {
        if case .bool(let flag) = value {
            return flag
        }
        if case .string(let text) = value {
            switch text.lowercased() {
            case "true", "1", "yes", "on": return true
            case "false", "0", "no", "off": return false
            default: break
            }
        }
        throw ConfigError(source: source, key: key, problem: "\(describe(value)) is not a boolean", accepted: "true or false")
    }

    private static func seconds(from value: JSONValue, source: String, key: String?, allowZero: Bool) throws(ConfigError) -> TimeInterval {
        let number: Double? = if case .string(let text) = value { Double(text) } else { value.doubleValue }
        guard let number, let seconds = Seconds(number, allowsZero: allowZero) else {
            throw ConfigError(
                source: source, key: key, problem: "\(describe(value)) is not a valid number of seconds", accepted: Seconds.acceptedRange(allowsZero: allowZero)
            )
        }
        return seconds.value
    }

    private static func url(from value: JSONValue, source: String, key: String?) throws(ConfigError) -> URL {
        guard case .string(let text) = value, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", url.host?.isEmpty == false
        else {
            throw ConfigError(
                source: source, key: key, problem: "\(describe(value)) is not an http or https URL", accepted: "a URL such as http://127.0.0.1:8080")
        }
        return url
    }

    private static func string(from value: JSONValue, source: String, key: String?) throws(ConfigError) -> String {
        guard case .string(let text) = value, !text.isEmpty else {
            throw ConfigError(source: source, key: key, problem: "\(describe(value)) must be a non-empty string")
        }
        return text
    }

    private static func describe(_ value: JSONValue) -> String {
        switch value {
        case .array: "an array"
        case .object: "an object"
        default: value.compactJSON
        }
    }
}
