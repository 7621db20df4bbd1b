import Foundation

/// How long `cassette --version` takes, and how long until `cassette replay` prints its
/// `listening on` line, beside spawning `/bin/true` (the cost of starting any process here).
enum StartupBench {
    static func run(cassette: String, store: String) throws {
        let runs = 15
        let version = try median((0..<runs).map { _ in try timeToExit(cassette, ["--version"]) })
        let trueBaseline = try median((0..<runs).map { _ in try timeToExit("/bin/true", []) })
        let listening = try median(
            (0..<runs).map { _ in try timeToListening(cassette, ["replay", "--db", store, "--cassette", "bench", "--port", "0", "--quiet"]) })
        Measure.printJSON([
            "versionSeconds": version,
            "processSpawnSeconds": trueBaseline,
            "replayListeningSeconds": listening,
        ])
    }

    private static func timeToExit(_ executable: String, _ arguments: [String]) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        return try Measure.seconds {
            try process.run()
            process.waitUntilExit()
        }
    }

    private static func timeToListening(_ executable: String, _ arguments: [String]) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        let seconds = try Measure.seconds {
            try process.run()
            var line = Data()
            while !line.contains(UInt8(ascii: "\n")) {
                let chunk = pipe.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                line.append(chunk)
            }
        }
        process.terminate()
        process.waitUntilExit()
        return seconds
    }
}
