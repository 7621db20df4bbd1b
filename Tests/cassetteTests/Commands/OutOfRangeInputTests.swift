import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// Numbers that parse but cannot be used (infinite, huge, negative) are usage errors naming the
/// flag or key and the accepted range; they once trapped on an integer conversion.
@Suite("Out-of-range numbers on the command line")
final class OutOfRangeInputTests {
    let workspace: CLIWorkspace
    // Values go as --flag=VALUE, so that a negative number is not read as an option.

    init() throws {
        workspace = try CLIWorkspace()
    }

    func firstErrorLine(_ result: CommandResult) -> String {
        String(result.stderr.split(separator: "\n").first ?? "")
    }

    @Test(arguments: ["inf", "1e300", "0", "-1", "86400.5", "nan"])
    func requestTimeout(value: String) async throws {
        let result = try await workspace.run("request", "--timeout=\(value)", "http://127.0.0.1:9/")
        #expect(result.status == 2, "\(result)")
        #expect(
            firstErrorLine(result) == "Error: --timeout \(Double(value)!) is out of range; use a number of seconds greater than 0 and at most 86400 (one day)")
    }

    @Test(arguments: ["inf", "1e300", "-1", "86401"])
    func requestRetryDelay(value: String) async throws {
        let result = try await workspace.run("request", "--retry-delay=\(value)", "http://127.0.0.1:9/")
        #expect(result.status == 2, "\(result)")
        #expect(firstErrorLine(result) == "Error: --retry-delay \(Double(value)!) is out of range; use a number of seconds from 0 to 86400 (one day)")
    }

    @Test func theLargestTimeoutAndDelayAreUsed() async throws {
        try await Ports.withRefusingPort { port in
            let result = try await workspace.run("request", "--timeout", "86400", "--retry-delay", "86400", "--retries", "0", "http://127.0.0.1:\(port)/")
            // Past validation and conversion: the request itself fails, as a runtime error.
            #expect(result.status == 1, "\(result)")
            #expect(result.stderr.contains("127.0.0.1:\(port)"), "\(result)")
        }
    }

    @Test(arguments: ["1e300", "inf", "-0.5"])
    func apiTimeoutInTheAppConfiguration(value: String) async throws {
        try workspace.write(#"{"apiTimeout": \#(value == "inf" ? "\"inf\"" : value)}"#, to: "wellplate.json")
        let result = try await workspace.run("request", "/api/health")
        #expect(result.status == 2, "\(result)")
        let line = firstErrorLine(result)
        #expect(line.hasPrefix("error: wellplate.json: \"apiTimeout\": "), "\(line)")
        #expect(line.hasSuffix("(accepted: a number of seconds greater than 0 and at most 86400 (one day))"), "\(line)")
    }

    @Test(arguments: ["9300000000000", "86400001", "inf", "-5", "1.5", "1e300"])
    func replayLatency(value: String) async throws {
        try await workspace.record([Recordings.make(.get, "/api/users")])
        let result = try await workspace.run("replay", "--port", "0", "--latency=\(value)")
        #expect(result.status == 2, "\(result)")
        #expect(
            firstErrorLine(result)
                == "Error: --latency \(value) is out of range; use a whole number of milliseconds from 0 to 86400000 (one day), none or recorded")
    }

}
