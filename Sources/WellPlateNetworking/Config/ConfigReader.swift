import Foundation
import WellPlateCore

/// Typed reads of configuration values; every failure names the file, the key path and what fits.
/// wellplate.json (`AppConfigLoader`) and cassette.json read their values, paths and TLS settings
/// through it, so the same mistake gets the same message in both.
package struct ConfigReader {
    package let source: String

    package init(source: String) {
        self.source = source
    }

    /// An object; with `keys`, any other member is an error that lists the accepted ones.
    package func object(_ value: JSONValue, at path: String?, keys: [String]?) throws(ConfigError) -> JSONObject {
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

    package func nonEmptyString(_ value: JSONValue, at path: String) throws(ConfigError) -> String {
        guard case .string(let text) = value, !text.isEmpty else {
            throw ConfigError(source: source, key: path, problem: "is \(describe(value)), not a non-empty string", accepted: "a string")
        }
        return text
    }

    package func strings(_ value: JSONValue, at path: String) throws(ConfigError) -> [String] {
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

    package func bool(_ value: JSONValue, at path: String) throws(ConfigError) -> Bool {
        guard case .bool(let flag) = value else {
            throw ConfigError(source: source, key: path, problem: "is \(describe(value)), not a boolean", accepted: "true or false")
        }
        return flag
    }

    /// A number of seconds within `range` (fractions allowed).
    package func seconds(_ value: JSONValue, at path: String, range: ClosedRange<Double>) throws(ConfigError) -> Duration {
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
                    "is \(describe(value)), not a number of seconds from \(Self.plain(range.lowerBound)) to \(Self.plain(range.upperBound))",
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

    package func httpURL(_ value: JSONValue, at path: String) throws(ConfigError) -> URL {
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

    /// The keys of a `"tls"` object.
    package static let tlsKeys = ["cacert", "cert", "key", "insecure"]

    /// `{"cacert": "ca.pem", "cert": "client.pem", "key": "client.key", "insecure": false}`, paths
    /// relative to the file.
    package func tls(_ value: JSONValue, at path: String) throws(ConfigError) -> TLSConfiguration {
        let fields = try object(value, at: path, keys: Self.tlsKeys)
        var tls = TLSConfiguration()
        func file(_ key: String) throws(ConfigError) -> String? {
            guard let value = fields[key] else { return nil }
            return Self.resolve(try nonEmptyString(value, at: "\(path).\(key)"), relativeToFileAt: source)
        }
        tls.additionalCACertificatesPath = try file("cacert")
        tls.clientCertificatePath = try file("cert")
        tls.clientKeyPath = try file("key")
        if let value = fields["insecure"] {
            tls.insecure = try bool(value, at: "\(path).insecure")
        }
        if tls.clientKeyPath != nil && tls.clientCertificatePath == nil {
            throw ConfigError(
                source: source, key: "\(path).key", problem: "needs \"cert\" (the client certificate it belongs to)",
                accepted: "{\"cert\": \"client.pem\", \"key\": \"client.key\"}")
        }
        return tls
    }

    /// `path` relative to the configuration file's directory; absolute paths as they are.
    package static func resolve(_ path: String, relativeToFileAt source: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        let directory = (source as NSString).deletingLastPathComponent
        guard !directory.isEmpty, directory != "." else { return path }
        return (directory as NSString).appendingPathComponent(path)
    }

    /// `30`, `0.5`: a number of seconds as written in a file, without a needless `.0`.
    package static func plain(_ seconds: Double) -> String {
        seconds.rounded() == seconds && abs(seconds) < 1e15 ? String(Int64(seconds)) : String(seconds)
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
