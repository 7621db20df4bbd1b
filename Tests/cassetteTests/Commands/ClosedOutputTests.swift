import Foundation
import TestSupport
import Testing
import WellPlateCore

/// Output nobody reads any more (`cassette replay | head -1`) is never a reason to crash: the
/// program stops printing, keeps working and exits normally.
@Suite("output whose reader went away")
final class ClosedOutputTests {
    let workspace: CLIWorkspace

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// Starts `cassette ARGUMENTS` with stdout on a pipe this test owns and stderr in a file.
    func start(_ arguments: [String], output: Pipe) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BuiltProducts.executable(named: "cassette"))
        process.arguments = arguments
        process.currentDirectoryURL = workspace.directory
        process.environment = ProcessInfo.processInfo.environment.merging(["NO_COLOR": "1"]) { _, new in new }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        _ = FileManager.default.createFile(atPath: workspace.path("stderr.txt"), contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: workspace.path("stderr.txt")))
        try process.run()
        return process
    }

    var standardError: String {
        (try? String(contentsOfFile: workspace.path("stderr.txt"), encoding: .utf8)) ?? ""
    }

    /// Reads up to the first newline, as `head -1` does.
    static func firstLine(of handle: FileHandle) -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(handle.fileDescriptor, &byte, 1) == 1, byte != UInt8(ascii: "\n") { bytes.append(byte) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Waits for the process without blocking a pool thread for long; kills it after `timeout`.
    static func waitForExit(_ process: Process, timeout: Duration = .seconds(20)) async throws {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    @Test func aReplayerWhoseOutputReaderIsGoneKeepsServingAndExitsNormallyOnSIGTERM() async throws {
        try await workspace.record([Recordings.make(.get, "/api/health", body: Recordings.json(#"{"status":"ok"}"#))])
        let output = Pipe()
        let process = try start(["replay", "--port", "0", "--db", workspace.storePath], output: output)
        let line = Self.firstLine(of: output.fileHandleForReading)
        try output.fileHandleForReading.close()
        let address = try #require(line.split(separator: " ").last.flatMap { URL(string: String($0)) }, "first line: \(line); \(standardError)")
        // Every answer writes a request line to the closed pipe; the request log runs every 20 ms.
        for _ in 0..<5 {
            let response = try await ProxyClient.send(.get, address.appendingPathComponent("api/health"))
            #expect(response.statusCode == 200)
            try await Task.sleep(for: .milliseconds(40))
        }
        process.terminate()
        try await Self.waitForExit(process)
        #expect(process.terminationReason == .exit, "\(standardError)")
        #expect(process.terminationStatus == 0, "\(standardError)")
        #expect(!standardError.contains("Fatal error"))
    }

    @Test(arguments: [["list"], ["show", "GET /api/health"], ["list", "--db", "missing.db"]])
    func aCommandPrintingIntoAClosedPipeExitsAsItWouldHave(_ arguments: [String]) async throws {
        try await workspace.record((0..<200).map { Recordings.make(.get, "/api/health?page=\($0)") } + [Recordings.make(.get, "/api/health")])
        let open = try await workspace.run(arguments: arguments)
        let output = Pipe()
        try output.fileHandleForReading.close()
        let process = try start(arguments, output: output)
        try await Self.waitForExit(process)
        #expect(process.terminationReason == .exit, "\(arguments): \(standardError)")
        #expect(process.terminationStatus == open.status, "\(arguments): \(standardError)")
        #expect(!standardError.contains("Fatal error"))
    }
}
