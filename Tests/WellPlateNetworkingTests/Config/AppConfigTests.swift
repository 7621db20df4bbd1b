import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

@Suite("AppConfig loading")
struct AppConfigTests {
    private func withConfigFile(_ contents: String, _ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("appconfig-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("wellplate.json").path
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
        try body(path)
    }

    @Test func missingKeysKeepTheirDefaults() throws {
        try withConfigFile(#"{"environment": "staging"}"#) { path in
            let config = try AppConfig.load(from: path, environmentVariables: [:])
            #expect(config.environment == .staging)
            #expect(config.mode == .live)
            #expect(config.apiTimeout == 30)
            #expect(config.mockResponseDelay == 0.8)
            #expect(config.baseURL == URL(string: "https://staging-api.wellplate.com"))
        }
    }

    /// wellplate.json and cassette.json read `"tls"` with one reader (`ConfigReader.tls`): paths
    /// relative to the file, and the same refusals with the same words.
    @Test func tlsPathsAreRelativeToTheFileAndAKeyNeedsItsCertificate() throws {
        try withConfigFile(#"{"tls": {"cacert": "ca.pem", "cert": "/abs/client.pem", "key": "client.key"}}"#) { path in
            let config = try AppConfig.load(from: path, environmentVariables: [:])
            let directory = (path as NSString).deletingLastPathComponent
            #expect(config.tls.additionalCACertificatesPath == directory + "/ca.pem")
            #expect(config.tls.clientCertificatePath == "/abs/client.pem")
            #expect(config.tls.clientKeyPath == directory + "/client.key")
        }
        try withConfigFile(#"{"tls": {"key": "client.key"}}"#) { path in
            #expect {
                try AppConfig.load(from: path, environmentVariables: [:])
            } throws: { error in
                "\(error)".contains("\"tls.key\": needs \"cert\"")
            }
        }
        try withConfigFile(#"{"tls": {"insecure": "sometimes"}}"#) { path in
            #expect {
                try AppConfig.load(from: path, environmentVariables: [:])
            } throws: { error in
                "\(error)".contains("\"tls.insecure\": is the string \"sometimes\", not a boolean")
            }
        }
    }

    @Test func aCompleteFileIsRead() throws {
        let json = """
            {"environment": "dev", "mode": "replay", "enableLogging": true, "apiTimeout": 5,
             "mockResponseDelay": 0, "baseURLs": {"development": "http://127.0.0.1:8081"},
             "cassettePath": "x.db", "cassette": "ci", "fixturesDirectory": "Fixtures"}
            """
        try withConfigFile(json) { path in
            let config = try AppConfig.load(from: path, environmentVariables: [:])
            #expect(config.environment == .development)
            #expect(config.mode == .replay)
            #expect(config.enableLogging)
            #expect(config.apiTimeout == 5)
            #expect(config.mockResponseDelay == 0)
            #expect(config.baseURL == URL(string: "http://127.0.0.1:8081"))
            #expect(config.cassettePath == "x.db")
            #expect(config.effectiveCassetteName == "ci")
            #expect(config.fixturesDirectory == "Fixtures")
        }
    }

    @Test func theDesignDocumentsMockModeSwitchStillWorks() throws {
        try withConfigFile(#"{"mockMode": true}"#) { path in
            let config = try AppConfig.load(from: path, environmentVariables: [:])
            #expect(config.mockMode)
            #expect(config.mode == .mock)
        }
    }

    @Test(
        arguments: [
            (#"{"environment": "moon"}"#, "environment", "development (dev), staging (stage), production (prod)"),
            (#"{"apiTimeout": "soon"}"#, "apiTimeout", "a number of seconds greater than 0 and at most 86400 (one day)"),
            (#"{"apiTimeout": 0}"#, "apiTimeout", "a number of seconds greater than 0 and at most 86400 (one day)"),
            (#"{"apiTimeout": 1e300}"#, "apiTimeout", "a number of seconds greater than 0 and at most 86400 (one day)"),
            (#"{"apiTimeout": 86400.5}"#, "apiTimeout", "a number of seconds greater than 0 and at most 86400 (one day)"),
            (#"{"apiTimeout": 123456789012345678901234567890}"#, "apiTimeout", "a number of seconds greater than 0 and at most 86400 (one day)"),
            (#"{"apiTimeout": true}"#, "apiTimeout", "a number of seconds greater than 0 and at most 86400 (one day)"),
            (#"{"mockResponseDelay": -1}"#, "mockResponseDelay", "a number of seconds from 0 to 86400 (one day)"),
            (#"{"mockResponseDelay": 1e300}"#, "mockResponseDelay", "a number of seconds from 0 to 86400 (one day)"),
            (#"{"baseURLs": [1]}"#, "baseURLs", nil),
            (#"{"enableLogging": "maybe"}"#, "enableLogging", "true or false"),
            (#"{"mode": "offline"}"#, "mode", "live, mock, replay, record"),
            (#"{"baseURL": "ftp://x"}"#, "baseURL", "a URL such as http://127.0.0.1:8080"),
            (#"{"timeout": 5}"#, "timeout", nil),
            (#"{"mode": "live", "mockMode": false}"#, "mockMode", nil),
            (#"{"transport": "pigeon"}"#, "transport", TransportChoice.allCases.filter(\.isAvailable).map { "\"\($0.rawValue)\"" }.joined(separator: " or ")),
            (#"{"transport": 1}"#, "transport", nil),
            (#"{"proxy": "127.0.0.1:8080"}"#, "proxy", "a URL such as http://127.0.0.1:8080"),
        ] as [(String, String, String?)])
    func badValuesNameTheFileTheKeyAndWhatIsAccepted(json: String, key: String, accepted: String?) throws {
        try withConfigFile(json) { path in
            do throws(ConfigError) {
                _ = try AppConfig.load(from: path, environmentVariables: [:])
                Issue.record("\(json) was accepted")
            } catch {
                #expect(error.source == path)
                #expect(error.key == key)
                if let accepted { #expect(error.accepted == accepted) }
                #expect(error.description.contains(path))
                #expect(error.description.contains("\"\(key)\""))
            }
        }
    }

    /// `"proxy"` (a `cassette record --forward`, say) reaches the curl transport; URLSession,
    /// which follows the system's proxy settings, refuses it with a message that says so.
    @Test func aProxyIsReadAndOnlyTheCurlTransportTakesIt() throws {
        try withConfigFile(#"{"proxy": "http://127.0.0.1:8080"}"#) { path in
            var config = try AppConfig.load(from: path, environmentVariables: [:])
            #expect(config.proxy == URL(string: "http://127.0.0.1:8080"))
            config.transport = .urlsession
            do throws(TransportError) {
                _ = try config.transport.transport(tls: config.tls, proxy: config.proxy)
                Issue.record("URLSession took a proxy")
            } catch {
                #expect(error.kind == .invalidRequest)
                #expect(error.message.contains("system's proxy settings") && error.message.contains("\"curl\""), "\(error.message)")
            }
        }
    }

    @Test func theTransportIsChosenByNameWhereThisBuildHasIt() throws {
        try withConfigFile(#"{"transport": "URLSession"}"#) { path in
            let config = try AppConfig.load(from: path, environmentVariables: [:])
            #expect(config.transport == .urlsession)
        }
        try withConfigFile(#"{}"#) { path in
            let config = try AppConfig.load(from: path, environmentVariables: [:])
            #expect(config.transport == .default)
        }
        try withConfigFile(#"{"transport": "curl"}"#) { path in
            if TransportChoice.curl.isAvailable {
                let config = try AppConfig.load(from: path, environmentVariables: [:])
                #expect(config.transport == .curl)
            } else {
                do throws(ConfigError) {
                    _ = try AppConfig.load(from: path, environmentVariables: [:])
                    Issue.record("\"curl\" was accepted by a build without libcurl")
                } catch {
                    #expect(error.description.contains("no libcurl"))
                    #expect(error.accepted == "\"urlsession\"")
                }
            }
        }
    }

    @Test func invalidJSONIsReportedWithTheFile() throws {
        try withConfigFile(#"{"environment": "#) { path in
            #expect {
                _ = try AppConfig.load(from: path, environmentVariables: [:])
            } throws: { error in
                (error as? ConfigError)?.description.contains("is not valid JSON") == true
            }
        }
    }

    @Test func aMissingExplicitFileIsAnError() {
        #expect(throws: ConfigError.self) {
            _ = try AppConfig.load(from: "/nonexistent/wellplate.json", environmentVariables: [:])
        }
    }

    @Test func environmentVariablesOverrideTheFile() throws {
        try withConfigFile(#"{"environment": "development", "apiTimeout": 5, "mode": "mock"}"#) { path in
            let config = try AppConfig.load(
                from: path,
                environmentVariables: [
                    "WELLPLATE_ENVIRONMENT": "staging",
                    "WELLPLATE_API_TIMEOUT": "2.5",
                    "WELLPLATE_MODE": "replay",
                    "API_BASE_URL": "http://127.0.0.1:9999",
                    "WELLPLATE_ENABLE_LOGGING": "yes",
                ])
            #expect(config.environment == .staging)
            #expect(config.apiTimeout == 2.5)
            #expect(config.mode == .replay)
            #expect(config.enableLogging)
            #expect(config.baseURL == URL(string: "http://127.0.0.1:9999"))
        }
    }

    @Test func aBadEnvironmentVariableNamesTheVariable() {
        do throws(ConfigError) {
            _ = try AppConfig.load(from: nil, environmentVariables: ["WELLPLATE_API_TIMEOUT": "ten"])
            Issue.record("accepted a non-numeric timeout")
        } catch {
            #expect(error.source == "environment variable WELLPLATE_API_TIMEOUT")
            #expect(error.description.contains("\"ten\""))
        }
    }

    @Test(arguments: [ClientMode.mock, .replay, .record])
    func productionRefusesEveryModeButLive(mode: ClientMode) throws {
        try withConfigFile(#"{"environment": "production", "mode": "\#(mode.rawValue)"}"#) { path in
            do throws(ConfigError) {
                _ = try AppConfig.load(from: path, environmentVariables: [:])
                Issue.record("production accepted \(mode)")
            } catch {
                #expect(error.key == "mode")
                #expect(error.description.contains("production"))
            }
        }
        #expect(throws: ConfigError.self) {
            _ = try AppConfig.load(from: nil, environmentVariables: ["WELLPLATE_ENVIRONMENT": "prod", "WELLPLATE_MODE": mode.rawValue])
        }
    }

    @Test func productionIsLiveByDefault() throws {
        let config = AppConfig.production()
        #expect(config.mode == .live)
        try config.validate()
    }
}
