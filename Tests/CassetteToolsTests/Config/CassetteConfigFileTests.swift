import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `cassette.json`, as every command reads it, checked through `cassette config --json` (which
/// prints the settings commands would use) and through the store commands.
@Suite("cassette.json configuration")
final class CassetteConfigFileTests {
    let workspace: CLIWorkspace

    init() throws {
        workspace = try CLIWorkspace()
    }

    static let example = """
        {
          "database": "recorded/api.db",
          "environments": {
            "dev": {"upstream": "http://127.0.0.1:8081"},
            "staging": {"upstream": "https://staging-api.example.com"}
          },
          "ignoredQueryParameters": ["_", "CB", "timestamp"],
          "ignoredBodyFields": ["request_id"],
          "matchBodies": false,
          "redact": {"headers": ["X-Session"], "queryParameters": ["session"], "jsonFields": ["ssn"]},
          "host": "0.0.0.0",
          "port": 9090
        }
        """

    func settings(_ arguments: String...) async throws -> [String: Any] {
        let result = try await workspace.run(arguments: ["config", "--json"] + arguments)
        #expect(result.status == 0, "\(result)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        return try #require(object as? [String: Any])
    }

    func configError(_ json: String, file: String = "cassette.json", _ arguments: String...) async throws -> String {
        try workspace.write(json, to: file)
        let result = try await workspace.run(arguments: ["list"] + arguments)
        #expect(result.status == 2, "\(result)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("error: "))
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        return result.stderr
    }

    @Test func withoutAFileEveryDefaultApplies() async throws {
        let settings = try await settings()
        #expect(settings["configFile"] is NSNull)
        #expect(settings["database"] as? String == "cassettes.db")
        #expect(settings["host"] as? String == "127.0.0.1")
        #expect(settings["port"] as? Int == 8080)
        #expect(settings["matchBodies"] as? Bool == true)
        #expect(settings["ignoredQueryParameters"] as? [String] == [])
        #expect((settings["environments"] as? [String: Any])?.isEmpty == true)
        #expect(settings["cassette"] as? String == "dev")
        #expect(settings["maxAge"] is NSNull)
        #expect(settings["stale"] as? String == "warn")
        #expect(settings["trackUsage"] as? Bool == false)
        let redact = try #require(settings["redact"] as? [String: Any])
        #expect((redact["headers"] as? [String])?.contains("authorization") == true)
        #expect(redact["cookies"] as? String == "secret-looking")
    }

    @Test func redactingEveryCookieIsReadAndAnUnknownChoiceNamesTheAcceptedOnes() async throws {
        try workspace.write(#"{"redact": {"cookies": "all"}}"#, to: "cassette.json")
        let redact = try #require(try await settings()["redact"] as? [String: Any])
        #expect(redact["cookies"] as? String == "all")
        try workspace.write(#"{"redact": {"cookies": "some"}}"#, to: "cassette.json")
        let result = try await workspace.run("config")
        #expect(result.status != 0, "\(result)")
        #expect(result.stderr.contains("redact.cookies") && result.stderr.contains("\"all\""), "\(result)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result)")
    }

    @Test func maxAgeStaleAndTrackUsageAreRead() async throws {
        try workspace.write(#"{"maxAge": 90, "stale": "fail", "trackUsage": true}"#, to: "cassette.json")
        let settings = try await settings()
        #expect(settings["maxAge"] as? Int == 90)
        #expect(settings["stale"] as? String == "fail")
        #expect(settings["trackUsage"] as? Bool == true)
    }

    @Test func theFileInTheWorkingDirectoryIsReadCompletely() async throws {
        try workspace.write(Self.example, to: "cassette.json")
        let settings = try await settings()
        #expect(settings["configFile"] as? String == "cassette.json")
        #expect(settings["database"] as? String == "recorded/api.db")
        #expect(settings["host"] as? String == "0.0.0.0")
        #expect(settings["port"] as? Int == 9090)
        #expect(settings["matchBodies"] as? Bool == false)
        #expect(settings["ignoredQueryParameters"] as? [String] == ["_", "cb", "timestamp"])
        #expect(settings["ignoredBodyFields"] as? [String] == ["request_id"])
        let environments = try #require(settings["environments"] as? [String: [String: String]])
        #expect(environments == ["dev": ["upstream": "http://127.0.0.1:8081"], "staging": ["upstream": "https://staging-api.example.com"]])
        let redact = try #require(settings["redact"] as? [String: Any])
        #expect((redact["headers"] as? [String])?.contains("x-session") == true)
        #expect((redact["headers"] as? [String])?.contains("cookie") == true)
        #expect((redact["queryParameters"] as? [String])?.contains("session") == true)
        #expect((redact["jsonFields"] as? [String])?.contains("ssn") == true)
    }

    @Test func theEnvironmentNamesTheUpstreamAndTheDefaultCassette() async throws {
        try workspace.write(Self.example, to: "cassette.json")
        let staging = try await settings("--env", "staging")
        #expect(staging["upstream"] as? String == "https://staging-api.example.com")
        #expect(staging["cassette"] as? String == "staging")
        let named = try await settings("--env", "staging", "--cassette", "release-7")
        #expect(named["cassette"] as? String == "release-7")
    }

    @Test func anUnknownEnvironmentListsTheConfiguredOnes() async throws {
        try workspace.write(Self.example, to: "cassette.json")
        let result = try await workspace.run("config", "--env", "prod")
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "error: unknown environment 'prod' (configured in cassette.json: dev, staging); pick one of them, add it to cassette.json or pass --upstream URL\n"
        )
    }

    @Test func flagsOverrideTheFile() async throws {
        try workspace.write(Self.example, to: "cassette.json")
        let settings = try await settings("--db", "other.db")
        #expect(settings["database"] as? String == "other.db")
    }

    @Test func anExplicitFileResolvesItsDatabaseNextToItself() async throws {
        try workspace.write(#"{"database": "api.db"}"#, to: "project/settings.json")
        let settings = try await settings("--config", "project/settings.json")
        #expect(settings["configFile"] as? String == "project/settings.json")
        #expect(settings["database"] as? String == "project/api.db")
    }

    @Test func storeCommandsUseTheConfiguredDatabase() async throws {
        try workspace.write(#"{"database": "recorded/api.db"}"#, to: "cassette.json")
        try FileManager.default.createDirectory(atPath: workspace.path("recorded"), withIntermediateDirectories: true)
        try await workspace.record([Recordings.make(.get, "/api/configured")], into: "recorded/api.db")
        let result = try await workspace.run("list")
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("GET /api/configured"))
    }

    @Test func aMissingExplicitFileIsAnError() async throws {
        let result = try await workspace.run("list", "--config", "nowhere.json")
        #expect(result.status == 2)
        #expect(result.stderr == "error: the configuration file nowhere.json does not exist; create it or pass the right --config path\n")
    }

    @Test func tlsPathsAreResolvedAgainstTheFileAndMatchHeadersAndTheTimeoutAreShown() async throws {
        try workspace.write(
            #"{"environments": {"staging": {"upstream": "https://s.example", "tls": {"cacert": "certs/ca.pem", "insecure": false}}}, "matchHeaders": ["Accept-Language"], "upstreamTimeout": 2.5}"#,
            to: "project/cassette.json")
        let settings = try await self.settings("--config", workspace.path("project/cassette.json"))
        let environments = try #require(settings["environments"] as? [String: [String: Any]])
        let tls = try #require(environments["staging"]?["tls"] as? [String: Any])
        #expect(tls["cacert"] as? String == workspace.path("project/certs/ca.pem"))
        #expect(tls["insecure"] as? Bool == false)
        #expect(settings["matchHeaders"] as? [String] == ["accept-language"])
        #expect(settings["upstreamTimeout"] as? Double == 2.5)
    }

    @Test func anEnvironmentsUpstreamsKeepTheFilesOrderWithTheirPortsAndTLS() async throws {
        try workspace.write(
            """
            {"environments": {"app": {"tls": {"cacert": "corp.pem"}, "upstreams": {
              "auth": {"upstream": "https://auth.example", "port": 9001, "tls": {"cacert": "auth.pem"}},
              "api": {"upstream": "https://api.example/v2"}
            }}}}
            """, to: "project/cassette.json")
        let settings = try await self.settings("--config", workspace.path("project/cassette.json"), "--env", "app")
        // The environment's upstream is its first; every entry in the file's order.
        #expect(settings["upstream"] as? String == "https://auth.example")
        let environments = try #require(settings["environments"] as? [String: [String: Any]])
        let upstreams = try #require(environments["app"]?["upstreams"] as? [String: [String: Any]])
        #expect(upstreams["auth"]?["port"] as? Int == 9001)
        #expect((upstreams["auth"]?["tls"] as? [String: Any])?["cacert"] as? String == workspace.path("project/auth.pem"))
        #expect(upstreams["api"]?["upstream"] as? String == "https://api.example/v2")
        let text = try await workspace.run("config", "--config", workspace.path("project/cassette.json"))
        #expect(text.stdout.contains("environment app:") && text.stdout.contains("auth https://auth.example, api https://api.example/v2"), "\(text)")
    }

    @Test(arguments: [
        (
            #"{"environments": {"app": {"upstream": "http://a", "upstreams": {"b": {"upstream": "http://b"}}}}}"#, "environments.app",
            #"has both "upstream" and "upstreams""#
        ),
        (#"{"environments": {"app": {"upstreams": {}}}}"#, "environments.app.upstreams", "names no upstream"),
        (#"{"environments": {"app": {"upstreams": {"a": {"port": 1}}}}}"#, "environments.app.upstreams.a", #"has no "upstream""#),
        (
            #"{"environments": {"app": {"upstreams": {"a": {"upstream": "http://h:80/x"}, "b": {"upstream": "HTTP://H/y"}}}}}"#,
            "environments.app.upstreams.b.upstream", "is the same host as environments.app.upstreams.a"
        ),
        (
            #"{"environments": {"app": {"upstreams": {"a": {"upstream": "http://a", "port": 9000}, "b": {"upstream": "http://b", "port": 9000}}}}}"#,
            "environments.app.upstreams.b.port", "is 9000, already the port of environments.app.upstreams.a"
        ),
    ])
    func aWrongUpstreamsEntryNamesItsPath(json: String, path: String, problem: String) async throws {
        let message = try await configError(json)
        #expect(message.hasPrefix("error: cassette.json: \"\(path)\": \(problem)"), "\(message)")
    }

    @Test func durabilityIsShownAndAnUnknownOneIsRefused() async throws {
        #expect(try await self.settings()["durability"] as? String == "normal")
        try workspace.write(#"{"durability": "full"}"#, to: "cassette.json")
        #expect(try await self.settings()["durability"] as? String == "full")
        let unknown = try await configError(#"{"durability": "fast"}"#)
        #expect(unknown.contains("\"durability\": is \"fast\" (accepted: \"normal\" or \"full\")"), "\(unknown)")
    }

    @Test func aKeyWithoutACertificateOrABadHeaderNameIsRefused() async throws {
        let key = try await configError(#"{"environments": {"dev": {"upstream": "https://a", "tls": {"key": "k.pem"}}}}"#)
        #expect(key.contains("\"environments.dev.tls.key\": needs \"cert\""), "\(key)")
        let header = try await configError(#"{"matchHeaders": ["Accept Language"]}"#)
        #expect(header.contains("\"matchHeaders[0]\""), "\(header)")
    }

    @Test func aMissingDefaultFileIsFine() async throws {
        try await workspace.record([Recordings.make(.get, "/api/a")])
        let result = try await workspace.run("list")
        #expect(result.status == 0, "\(result)")
    }

    @Test func anUnknownKeyNamesTheFileTheKeyAndTheAcceptedKeys() async throws {
        let message = try await configError(#"{"databse": "x.db"}"#)
        #expect(
            message
                == "error: cassette.json: \"databse\": is not a configuration key (accepted: database, environments, ignoredQueryParameters, ignoredBodyFields, matchBodies, matchHeaders, redact, host, port, upstreamTimeout, durability, maxAge, stale, trackUsage, rewriteURLs, rewriteBodyURLs, graphql, grpc)\n"
        )
    }

    @Test func anUnknownNestedKeyNamesItsPath() async throws {
        let environment = try await configError(#"{"environments": {"dev": {"upstream": "http://a", "timeout": 3}}}"#)
        #expect(environment == "error: cassette.json: \"environments.dev.timeout\": is not a configuration key (accepted: upstream, upstreams, tls)\n")
        let redact = try await configError(#"{"redact": {"cookie": ["a"]}}"#)
        #expect(redact == "error: cassette.json: \"redact.cookie\": is not a configuration key (accepted: headers, queryParameters, jsonFields, cookies)\n")
    }

    @Test(arguments: [
        (
            #"{"environments": {"dev": {"upstream": 8081}}}"#, "environments.dev.upstream", "is the number 8081, not a string",
            #"an http(s) URL such as "http://127.0.0.1:8081""#
        ),
        (
            #"{"environments": {"dev": {"upstream": "ftp://files"}}}"#, "environments.dev.upstream", #"the string "ftp://files" is not an http or https URL"#,
            #"an http(s) URL such as "http://127.0.0.1:8081""#
        ),
        (#"{"environments": {"dev": "http://127.0.0.1:8081"}}"#, "environments.dev", #"is the string "http://127.0.0.1:8081", not an object"#, "a JSON object"),
        (#"{"environments": {"dev": {}}}"#, "environments.dev", #"has no "upstream""#, #"{"upstream": "http://127.0.0.1:8081"}"#),
        (#"{"port": "8080"}"#, "port", #"is the string "8080", not a port number"#, "an integer from 1 to 65535"),
        (#"{"port": 70000}"#, "port", "is the number 70000, not a port number", "an integer from 1 to 65535"),
        (#"{"matchBodies": "yes"}"#, "matchBodies", #"is the string "yes", not a boolean"#, "true or false"),
        (#"{"ignoredQueryParameters": "_"}"#, "ignoredQueryParameters", #"is the string "_", not an array of strings"#, #"an array such as ["_", "cb"]"#),
        (
            #"{"ignoredQueryParameters": ["_", 3]}"#, "ignoredQueryParameters[1]", "is the number 3, not a non-empty string",
            #"an array of names such as ["_", "cb"]"#
        ),
        (#"{"redact": {"jsonFields": [null]}}"#, "redact.jsonFields[0]", "is null, not a non-empty string", #"an array of names such as ["_", "cb"]"#),
        (#"{"database": ""}"#, "database", #"is the string "", not a non-empty string"#, "a string"),
    ])
    func aWrongTypeNamesTheKeyPathAndWhatIsAccepted(json: String, path: String, problem: String, accepted: String) async throws {
        let message = try await configError(json)
        #expect(message == "error: cassette.json: \"\(path)\": \(problem) (accepted: \(accepted))\n")
    }

    @Test func invalidJSONNamesTheFileAndThePosition() async throws {
        let message = try await configError("{\n  \"port\": 8080,\n}", file: "broken.json", "--config", "broken.json")
        #expect(message.hasPrefix("error: broken.json: is not valid JSON: invalid JSON at line 3, column 1"))
    }

    @Test func aTopLevelArrayIsRejected() async throws {
        let message = try await configError("[]")
        #expect(message.hasPrefix("error: cassette.json: is an array, not an object"))
    }
}
