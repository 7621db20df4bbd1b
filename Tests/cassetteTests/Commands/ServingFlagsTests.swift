import ArgumentParser
import Foundation
import Logging
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

@testable import CassetteForward
@testable import CassetteKernel
@testable import CassetteProxy
@testable import CassetteServing
@testable import CassetteUIServer
@testable import CassetteWebSocket
@testable import cassette

/// Every flag of the serving option groups through `record`, `replay` and `run`: parsed as the
/// command line parses it, built into the proxy by `ServingOptions`, never started. A flag added
/// to a group without a row here fails, a flag added to one serving command outside the groups
/// fails, and so does a command that rejects a flag its groups promise.
@Suite("Serving flags on record, replay and run")
final class ServingFlagsTests {
    let workspace: CLIWorkspace

    init() throws {
        workspace = try CLIWorkspace()
        // Passed to every row that names no other, so no cassette.json of the working directory
        // leaks in; its environment is the one `--env` names.
        try workspace.write(#"{"environments": {"staging": {"upstream": "http://127.0.0.1:9/staging"}}}"#, to: "cassette.json")
        try workspace.write(#"{"host": "127.0.0.7"}"#, to: "other.json")
    }

    enum Command: String, CaseIterable, Sendable {
        case record, replay, run

        /// `record` records what it does not find, so replay's flags are not for it.
        var takesReplayFlags: Bool { self != .record }

        /// The groups of flags the command takes, beyond its own.
        var groups: [any ParsableArguments.Type] {
            [ServingOptions.self] + (takesReplayFlags ? [ReplayFlags.self] : [])
        }

        /// Its flags that belong to no group: what only it means.
        var ownFlags: Set<String> {
            switch self {
            case .record: ["--mode"]
            case .replay: []
            case .run: ["--mode", "--report", "--fixtures"]
            }
        }

        var type: any ParsableCommand.Type {
            switch self {
            case .record: RecordCommand.self
            case .replay: ReplayCommand.self
            case .run: RunCommand.self
            }
        }
    }

    /// One flag: the arguments that give it (with what it needs beside it), and what it must
    /// change in the proxy the command builds. `WORKSPACE` stands for the test's directory.
    struct Row: Sendable, CustomTestStringConvertible {
        let flag: String
        let arguments: [String]
        let check: @Sendable (Built) -> Bool

        init(_ flag: String, _ values: String..., also: [String] = [], check: @escaping @Sendable (Built) -> Bool) {
            self.flag = flag
            arguments = [flag] + values + also
            self.check = check
        }

        var testDescription: String { arguments.joined(separator: " ") }
    }

    /// What a command line built.
    struct Built {
        let command: any ServingCommand
        let runner: ProxyRunner

        var settings: ProxySettings { runner.settings }

        /// `--strict`, which the command keeps: it is about the exit status, not the proxy.
        var strict: Bool {
            switch command {
            case let replay as ReplayCommand: replay.replaying.strict
            case let run as RunCommand: run.replaying.strict
            default: false
            }
        }
    }

    /// `ServingOptions`: taken by every serving command.
    static let servingRows: [Row] = [
        Row("--db", "other.db") { $0.runner.storePath == "other.db" },
        Row("--config", "WORKSPACE/other.json") { $0.settings.host == "127.0.0.7" },
        Row("--cassette", "checkout") { $0.runner.cassette == "checkout" },
        Row("--env", "staging") { $0.settings.upstream?.absoluteString == "http://127.0.0.1:9/staging" && $0.runner.cassette == "staging" },
        Row("--upstream", "http://127.0.0.1:9/a", also: ["--upstream", "http://127.0.0.2:9/b"]) {
            $0.settings.upstreams.map(\.url.absoluteString) == ["http://127.0.0.1:9/a", "http://127.0.0.2:9/b"]
        },
        Row("--forward") { $0.settings.forward != nil && $0.settings.upstream == nil },
        Row("--ca-dir", "/tmp/ca", also: ["--forward"]) { $0.settings.forward?.caDirectory == "/tmp/ca" },
        Row("--host-filter", "*.example.com", also: ["--forward"]) { $0.settings.forward?.hostFilters == [HostPattern("*.example.com")] },
        Row("--passthrough-host", "pay.example.com", also: ["--forward"]) { $0.settings.forward?.passthroughHosts == [HostPattern("pay.example.com")] },
        Row("--host", "127.0.0.3") { $0.settings.host == "127.0.0.3" },
        Row("--port", "9123") { $0.settings.port == 9123 },
        Row("--max-body-size", "1024") { $0.settings.maxBodySize == 1024 },
        Row("--durability", "full") { $0.settings.durability == .full },
        Row("--quiet") { !$0.settings.logRequests },
        Row("--no-rewrite-urls") { !$0.settings.rewritesUpstreamURLs },
        Row("--rewrite-body-urls") { $0.settings.rewritesBodyURLs },
        Row("--ws-timing", "0.5") { $0.settings.webSocket.timingScale == 0.5 },
        Row("--ws-max-message", "1000") { $0.settings.webSocket.maxMessageSize == 1000 },
        Row("--grpc-max-message", "2000") { $0.settings.grpc.maxMessage == 2000 },
        Row("--grpc-timing", "fast") { $0.settings.grpc.timingScale == 0 },
        // Any existing file passes validation; the proxy reads it when it starts.
        Row("--protoset", "/bin/sh") { $0.settings.grpc.protosets == ["/bin/sh"] },
        Row("--graphql-path", "/gql") { $0.runner.matchingRules?.graphQLPaths == ["/gql"] },
        Row("--max-sessions", "3") { $0.settings.maxSessions == 3 },
        Row("--session-idle-timeout", "90s") { $0.settings.sessionIdleTimeout == .seconds(90) },
        Row("--sessions-only") { $0.settings.sessionsOnly },
        Row("--cacert", "/tmp/ca.pem") { $0.settings.tls.additionalCACertificatesPath == "/tmp/ca.pem" },
        Row("--cert", "/tmp/client.pem") { $0.settings.tls.clientCertificatePath == "/tmp/client.pem" },
        Row("--key", "/tmp/key.pem", also: ["--cert", "/tmp/client.pem"]) { $0.settings.tls.clientKeyPath == "/tmp/key.pem" },
        Row("--insecure") { $0.settings.tls.insecure },
        Row("--upstream-timeout", "5") { $0.settings.upstreamTimeout == .seconds(5) },
        // On `replay` it matters with --on-miss record; without it, accepted like --durability.
        Row("--redact-all-cookies") { $0.runner.redactor.redactsCookie(name: "theme", value: "dark") },
    ]

    /// `ReplayFlags`: taken by `replay` and `run`; `record` records what it does not find.
    static let replayingRows: [Row] = [
        Row("--strict") { $0.strict },
        Row("--on-miss", "passthrough", also: ["--upstream", "http://127.0.0.1:9"]) { $0.runner.policy.onMiss == .passthrough },
        Row("--latency", "250") { $0.settings.latency == .fixed(.milliseconds(250)) },
        Row("--miss-status", "418") { $0.settings.missStatus == 418 },
        Row("--sequence", "cycle") { $0.runner.sequencePolicy == .cycle },
        Row("--max-age", "30") { $0.settings.stalePolicy?.maxAgeDays == 30 },
        Row("--stale", "fail", also: ["--max-age", "30"]) { $0.settings.stalePolicy?.fails == true },
        Row("--track-usage") { $0.runner.tracksUsage },
    ]

    @Test("every flag of the serving groups has a row")
    func everyGroupFlagHasARow() throws {
        #expect(try Self.flags(of: ServingOptions.self) == Set(Self.servingRows.map(\.flag)))
        #expect(try Self.flags(of: ReplayFlags.self) == Set(Self.replayingRows.map(\.flag)))
    }

    @Test("a serving command's flags are its groups' and its own, no more", arguments: Command.allCases)
    func commandsTakeTheirGroupsFlags(_ command: Command) throws {
        let groups = try command.groups.reduce(into: Set<String>()) { $0.formUnion(try Self.flags(of: $1)) }
        let flags = try Self.flags(of: command.type)
        #expect(flags.subtracting(groups) == command.ownFlags)
        #expect(groups.isSubset(of: flags))
    }

    @Test("a flag of ServingOptions means the same on every serving command", arguments: servingRows, Command.allCases)
    func servingFlag(_ row: Row, on command: Command) throws {
        let built = try build(row, on: command)
        #expect(row.check(built), "\(row.testDescription) on \(command)")
    }

    @Test("a flag of ReplayFlags means the same on replay and run, and record refuses it", arguments: replayingRows, Command.allCases)
    func replayingFlag(_ row: Row, on command: Command) throws {
        guard command.takesReplayFlags else {
            do {
                _ = try build(row, on: command)
                Issue.record("\(command) takes \(row.flag)")
            } catch {
                #expect(Cassette.message(for: error).contains("Unknown option '\(row.flag)'"), "\(error)")
            }
            return
        }
        let built = try build(row, on: command)
        #expect(row.check(built), "\(row.testDescription) on \(command)")
    }

    @Test("a pace that is neither recorded, fast nor a factor is refused, naming what is accepted", arguments: ["--ws-timing", "--grpc-timing"])
    func badTiming(_ flag: String) throws {
        do {
            _ = try build(Row(flag, "slowly") { _ in true }, on: .replay)
            Issue.record("\(flag) slowly was accepted")
        } catch {
            let message = Cassette.message(for: error)
            #expect(message.contains(flag) && message.contains("slowly") && message.contains("recorded, fast or a factor"), "\(message)")
        }
    }

    /// `cassette COMMAND ROW`, with what the command needs to parse at all: an upstream for
    /// `record`, a command after -- for `run`.
    private func build(_ row: Row, on command: Command) throws -> Built {
        var arguments = row.arguments.map { $0.replacingOccurrences(of: "WORKSPACE", with: workspace.directory.path) }
        if !arguments.contains("--config") { arguments += ["--config", workspace.path("cassette.json")] }
        if command == .record && !arguments.contains(where: { ["--upstream", "--env", "--forward"].contains($0) }) {
            arguments += ["--upstream", "http://127.0.0.1:9"]
        }
        if command == .run { arguments += ["--", "true"] }
        let parsed = try Cassette.parseAsRoot([command.rawValue] + arguments)
        let serving = try #require(parsed as? any ServingCommand)
        // Nothing is started, so nothing is logged nor written to the request log.
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        return Built(command: serving, runner: try serving.makeRunner(logger: logger, requestLogDescriptor: -1))
    }

    /// The long names of `type`'s flags and options, as ArgumentParser's `--experimental-dump-help`
    /// describes them (the same description shell completions are made from).
    private static func flags(of type: any ParsableArguments.Type) throws -> Set<String> {
        let message: String
        do {
            _ = try type.parse(["--experimental-dump-help"])
            Issue.record("--experimental-dump-help printed nothing for \(type)")
            return []
        } catch {
            message = type.fullMessage(for: error)
        }
        let dump = try JSONDecoder().decode(DumpedHelp.self, from: Data(message.utf8))
        let names = (dump.command.arguments ?? []).flatMap { $0.names ?? [] }.filter { $0.kind == "long" }.map { "--" + $0.name }
        return Set(names).subtracting(["--help", "--version"])
    }

    /// The part of ArgumentParser's tool description read here.
    private struct DumpedHelp: Decodable {
        struct Command: Decodable {
            var arguments: [Argument]?
        }
        struct Argument: Decodable {
            var names: [Name]?
        }
        struct Name: Decodable {
            var kind: String
            var name: String
        }
        var command: Command
    }
}
