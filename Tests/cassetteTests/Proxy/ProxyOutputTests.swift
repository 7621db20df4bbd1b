import CassetteProxy
import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// What the proxy prints: the `listening on` line scripts wait for, one line per request, a
/// summary, and colour only for a person at a terminal.
@Suite("Proxy output")
final class ProxyOutputTests {
    let workspace: CLIWorkspace
    var store: String { workspace.storePath }

    init() throws {
        workspace = try CLIWorkspace()
    }

    static let escape = "\u{1B}"

    func recordFixtures() async throws {
        try await workspace.record([Recordings.make(.get, "/api/users"), Recordings.make(.get, "/api/health")])
    }

    /// Whether `line` is a request line such as `GET /api/users 200 1.2ms replayed`.
    static func isRequestLine(_ line: String, _ method: String, _ target: String, _ status: Int, _ outcome: String) -> Bool {
        let pattern = "^\(method) \(NSRegularExpression.escapedPattern(for: target)) \(status) [0-9]+\\.[0-9]{2}ms \(outcome)$"
        return line.range(of: pattern, options: .regularExpression) != nil
    }

    @Test func replayPrintsTheAddressThenOneLinePerRequestThenASummary() async throws {
        try await recordFixtures()
        try await withReplayer(store: store) { replayer async throws in
            _ = try await replayer.get("/api/users")
            _ = try await replayer.get("/api/missing?page=2")
            _ = try await replayer.get("/__cassette/health")
            #expect(try await replayer.stop() == .exited(0))
            let lines = replayer.outputLines
            #expect(lines.first == "listening on http://127.0.0.1:\(replayer.port)")
            #expect(lines.count == 6, "\(lines)")
            guard lines.count == 6 else { return }
            #expect(Self.isRequestLine(lines[1], "GET", "/api/users", 200, "replayed"), "\(lines[1])")
            #expect(Self.isRequestLine(lines[2], "GET", "/api/missing?page=2", 404, "miss"), "\(lines[2])")
            #expect(Self.isRequestLine(lines[3], "GET", "/__cassette/health", 200, "cassette"), "\(lines[3])")
            #expect(lines[4] == "recorded 0, replayed 1, missed 1, unused recordings 1")
            #expect(lines[5] == "  unused: GET /api/health")
            #expect(replayer.process.standardError.isEmpty)
        }
    }

    /// Connections spread over the event loops, each of which logs into a buffer of its own: the
    /// lines still come out in the order the requests were answered.
    @Test func linesFromConnectionsOnDifferentEventLoopsKeepTheirOrder() async throws {
        try await recordFixtures()
        try await withReplayer(store: store) { replayer async throws in
            let count = 24
            for number in 0..<count {
                // A fresh connection each time: NIO hands new connections to its loops in turn.
                let connection = try await replayer.connect()
                try await connection.send("GET /api/missing?n=\(number) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                _ = try await connection.receiveUntilClosed()
            }
            #expect(try await replayer.stop() == .exited(0))
            let targets = replayer.outputLines.filter { $0.hasPrefix("GET ") }.map { $0.split(separator: " ")[1] }
            #expect(targets == (0..<count).map { "/api/missing?n=\($0)" })
        }
    }

    @Test func recordPrintsARecordedLinePerRequest() async throws {
        try await withSampleAPI { api async throws in
            try await withRecorder(upstream: api, store: store) { recorder async throws in
                _ = try await recorder.get("/api/users")
                _ = try await recorder.send(.post, "/api/nutrition/analyze", json: #"{"food":"apple","grams":100}"#)
                #expect(try await recorder.stop() == .exited(0))
                let lines = recorder.outputLines
                #expect(lines.first == "listening on http://127.0.0.1:\(recorder.port)")
                #expect(lines.count == 4, "\(lines)")
                guard lines.count == 4 else { return }
                #expect(Self.isRequestLine(lines[1], "GET", "/api/users", 200, "recorded"), "\(lines[1])")
                #expect(Self.isRequestLine(lines[2], "POST", "/api/nutrition/analyze", 200, "recorded"), "\(lines[2])")
                #expect(lines[3] == "recorded 2, replayed 0, missed 0, unused recordings 0")
            }
        }
    }

    @Test func quietPrintsOnlyTheAddressAndTheSummary() async throws {
        try await recordFixtures()
        try await withReplayer(store: store, arguments: ["--quiet"]) { replayer async throws in
            _ = try await replayer.get("/api/users")
            #expect(try await replayer.stop() == .exited(0))
            #expect(replayer.outputLines.count == 3)
            #expect(replayer.outputLines.dropFirst().first?.hasPrefix("recorded 0, replayed 1") == true)
        }
    }

    @Test func noColourWhenStdoutIsAPipe() async throws {
        try await recordFixtures()
        // NO_COLOR empty counts as unset; TERM says the terminal could do colour.
        try await withReplayer(store: store, environment: ["NO_COLOR": "", "TERM": "xterm-256color"]) { replayer async throws in
            _ = try await replayer.get("/api/users")
            _ = try await replayer.get("/api/missing")
            #expect(try await replayer.stop() == .exited(0))
            #expect(!replayer.process.standardOutput.contains(Self.escape))
            #expect(!replayer.process.standardError.contains(Self.escape))
        }
    }

    /// The request line as a terminal showed it, once it was written.
    func requestLineOnTerminal(environment: [String: String]) async throws -> String {
        try await recordFixtures()
        return try await withProxy(["replay", "--port", "0", "--db", store], environment: environment, standardOutputOnTerminal: true) {
            replayer async throws in
            #expect(replayer.process.standardOutput.hasSuffix("\r\n"), "a terminal ends lines with CR LF")
            _ = try await replayer.get("/api/users")
            try await replayer.waitForLogLine(containing: "replayed")
            return try #require(replayer.process.standardOutput.split(separator: "\r\n").first { $0.contains("/api/users") }.map(String.init))
        }
    }

    @Test func colourOnATerminal() async throws {
        let line = try await requestLineOnTerminal(environment: ["NO_COLOR": "", "TERM": "xterm-256color"])
        #expect(line.contains(Self.escape), "\(line)")
    }

    @Test func noColourOnATerminalWhenNO_COLORIsSet() async throws {
        let line = try await requestLineOnTerminal(environment: ["NO_COLOR": "1", "TERM": "xterm-256color"])
        #expect(!line.contains(Self.escape), "\(line)")
        #expect(Self.isRequestLine(line, "GET", "/api/users", 200, "replayed"), "\(line)")
    }
}
