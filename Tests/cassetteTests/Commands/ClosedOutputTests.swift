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

    /// Starts `cassette ARGUMENTS` with stdout on a pipe this test owns (the child gets the write
    /// end; this process's copy is closed) and stderr captured.
    func start(_ arguments: [String], output: Pipe) throws -> ChildProcess {
        let streams = ChildStreams(standardOutput: .descriptor(output.fileHandleForWriting.fileDescriptor), directory: workspace.directory.path)
        let process = try ChildProcess(
            executable: try BuiltProducts.executable(named: "cassette"), arguments: arguments, environment: ["NO_COLOR": "1"], streams: streams)
        try output.fileHandleForWriting.close()
        return process
    }

    /// Reads up to the first newline, as `head -1` does.
    static func firstLine(of handle: FileHandle) -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(handle.fileDescriptor, &byte, 1) == 1, byte != UInt8(ascii: "\n") { bytes.append(byte) }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func aReplayerWhoseOutputReaderIsGoneKeepsServingAndExitsNormallyOnSIGTERM() async throws {
        try await workspace.record([Recordings.make(.get, "/api/health", body: Recordings.json(#"{"status":"ok"}"#))])
        let output = Pipe()
        let process = try start(["replay", "--port", "0", "--db", workspace.storePath], output: output)
        let line = Self.firstLine(of: output.fileHandleForReading)
        try output.fileHandleForReading.close()
        let address = try #require(line.split(separator: " ").last.flatMap { URL(string: String($0)) }, "first line: \(line); \(process.standardError)")
        // Every answer writes a request line to the closed pipe; the request log runs every 20 ms.
        for _ in 0..<5 {
            let response = try await ProxyClient.send(.get, address.appendingPathComponent("api/health"))
            #expect(response.statusCode == 200)
            try await Task.sleep(for: .milliseconds(40))
        }
        // Never SIGKILLed: the replayer has the whole grace period to stop on its own.
        let status = await process.terminate(gracePeriod: Patience.process)
        #expect(status == .exited(0), "\(process.standardError)")
        #expect(!process.standardError.contains("Fatal error"))
    }

    @Test(arguments: [["list"], ["show", "GET /api/health"], ["list", "--db", "missing.db"]])
    func aCommandPrintingIntoAClosedPipeExitsAsItWouldHave(_ arguments: [String]) async throws {
        try await workspace.record((0..<200).map { Recordings.make(.get, "/api/health?page=\($0)") } + [Recordings.make(.get, "/api/health")])
        let open = try await workspace.run(arguments: arguments)
        let output = Pipe()
        try output.fileHandleForReading.close()
        let process = try start(arguments, output: output)
        let status = try await process.waitForExit()
        #expect(status == .exited(open.status), "\(arguments): \(process.standardError)")
        #expect(!process.standardError.contains("Fatal error"))
    }
}
