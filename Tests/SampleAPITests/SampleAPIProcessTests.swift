import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

#if canImport(Glibc)
import Glibc
#endif

/// The sample API as a process: flags, the "listening on" line, signals, and connection failures.
@Suite("Sample API process")
struct SampleAPIProcessTests {
    @Test func portZeroBindsAFreeLoopbackPortAndPrintsOnlyThatLine() async throws {
        try await withSampleAPIProcess(arguments: ["--verbose"]) { base, process async throws in
            #expect(base.host == "127.0.0.1")
            #expect(base.port != nil && base.port != 0)
            let health = try await CurlTransport.shared.send(TransportRequest(method: .get, url: base.appending(pathAndQuery: "/api/health")))
            #expect(health.statusCode == 200)
            process.send(signal: SIGTERM)
            #expect(try await process.waitForExit() == .exited(0))
            #expect(process.standardOutput == "listening on \(base.absoluteString)\n")
        }
    }

    @Test(arguments: [["--bogus"], ["--port", "abc"], ["--port"], ["--port", "70000"], ["--verbose=yes"], ["stray"]])
    func badCommandLinesExitWith2AndOneLineOnStderr(arguments: [String]) async throws {
        try await withChildProcess("sample-api", arguments: arguments) { process async throws in
            #expect(try await process.waitForExit() == .exited(2))
            let lines = process.standardError.split(separator: "\n")
            #expect(lines.count == 1)
            #expect(lines.first?.contains(arguments[0].split(separator: "=")[0]) == true)
            #expect(process.standardOutput.isEmpty)
        }
    }

    @Test func helpPrintsUsageAndExits0() async throws {
        try await withChildProcess("sample-api", arguments: ["--help"]) { process async throws in
            #expect(try await process.waitForExit() == .exited(0))
            #expect(process.standardOutput.hasPrefix("USAGE: sample-api"))
        }
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalStopsTheServerWithExitCode0(signal: Int32) async throws {
        try await withSampleAPIProcess { base, process async throws in
            #expect(try await CurlTransport.shared.send(TransportRequest(method: .get, url: base.appending(pathAndQuery: "/api/health"))).statusCode == 200)
            process.send(signal: signal)
            #expect(try await process.waitForExit() == .exited(0))
            #expect(process.standardError.isEmpty)
        }
    }

    /// A request pipelined behind another is answered when the signal comes while it runs: the
    /// server closes a connection on shutdown only after the last request it has read. (Once
    /// intermittent on loaded runs for two reasons: the SIGTERM was lost, see
    /// `aSignalSentAsSoonAsTheServerListensIsNeverLost`; and the test waited for a buffer that
    /// *ended* with the first answer, so when a loaded machine let both answers arrive in one
    /// read it waited for an answer it already had, before ever sending the signal.)
    @Test func shutdownFinishesTheRequestInFlight() async throws {
        try await withSampleAPIProcess { base, process async throws in
            let connection = try await RawConnection.connect(port: try #require(base.port))
            // Pipelined in one write: once the first answer arrives the server has read the
            // second request and started it, so the signal below lands while it is in flight
            // (or, on a machine slow enough, just after it: the answers must be whole either way).
            try await connection.send(
                "GET /api/health HTTP/1.1\r\nHost: x\r\n\r\nGET /api/slow?ms=1000 HTTP/1.1\r\nHost: x\r\n\r\n"
            )
            let first = try await connection.receive { $0.text.contains(#""version":"1.0.0"}"#) }
            #expect(first.text.hasPrefix("HTTP/1.1 200 OK"))
            process.send(signal: SIGTERM)
            let all = first.text + (try await connection.receiveUntilClosed().text)
            #expect(all.components(separatedBy: "HTTP/1.1 200 OK").count == 3)
            #expect(all.hasSuffix(#"{"delayedMs":1000}"#))
            #expect(try await process.waitForExit() == .exited(0))
        }
    }

    /// The signal handler is in place before "listening on" is printed. With a Dispatch signal
    /// source behind `SIG_IGN` it was not (Dispatch installs its handler later, on its own
    /// thread): a SIGTERM sent at once was ignored about 1 time in 40 on an idle machine, more
    /// often on a busy one, and the server went on serving. Several processes, to give that
    /// window a chance.
    @Test func aSignalSentAsSoonAsTheServerListensIsNeverLost() async throws {
        for _ in 0..<12 {
            try await withSampleAPIProcess { _, process async throws in
                process.send(signal: SIGTERM)
                #expect(try await process.waitForExit() == .exited(0))
            }
        }
    }

    @Test func idleKeepAliveConnectionsAreClosedOnShutdown() async throws {
        try await withSampleAPIProcess { base, process async throws in
            let connection = try await RawConnection.connect(port: try #require(base.port))
            try await connection.send("GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try await connection.receive { $0.text.hasSuffix("}") }
            process.send(signal: SIGTERM)
            #expect(try await connection.receiveUntilClosed().isEmpty)
            #expect(try await process.waitForExit() == .exited(0))
        }
    }

    @Test func aTakenPortExitsWith1NamingTheAddress() async throws {
        try await withSampleAPI { base async throws in
            let port = try #require(base.port)
            try await withChildProcess("sample-api", arguments: ["--port", String(port)]) { second async throws in
                #expect(try await second.waitForExit() == .exited(1))
                #expect(second.standardError.contains("127.0.0.1:\(port)"))
                #expect(second.standardError.split(separator: "\n").count == 1)
                #expect(second.standardOutput.isEmpty)
            }
        }
    }

    @Test func malformedHTTPGets400AndOnlyThatConnectionCloses() async throws {
        try await withSampleAPI { base async throws in
            let port = try #require(base.port)
            let bystander = try await RawConnection.connect(port: port)
            try await bystander.send("GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try await bystander.receive { $0.text.hasSuffix("}") }

            let garbage = try await RawConnection.connect(port: port)
            try await garbage.send([0x00, 0xFF] + Array("NOT HTTP AT ALL\r\n\r\n".utf8))
            let answer = try await garbage.receiveUntilClosed().text
            #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request"))
            #expect(answer.contains(#""error":"bad_request""#))

            // The open connection and new ones are still served.
            try await bystander.send("GET /api/users/1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(try await bystander.receiveUntilClosed().text.contains("Ada Lovelace"))
            let fresh = try await CurlTransport.shared.send(TransportRequest(method: .get, url: base.appending(pathAndQuery: "/api/health")))
            #expect(fresh.statusCode == 200)
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await withSampleAPI { base async throws in
            let connection = try await RawConnection.connect(port: try #require(base.port))
            try await connection.send(
                "GET /api/slow?ms=200 HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /api/users/2 HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            )
            let text = try await connection.receiveUntilClosed().text
            let slow = try #require(text.range(of: "delayedMs"))
            let grace = try #require(text.range(of: "Grace Hopper"))
            let health = try #require(text.range(of: #""status":"ok""#))
            #expect(slow.lowerBound < grace.lowerBound && grace.lowerBound < health.lowerBound)
            #expect(text.components(separatedBy: "HTTP/1.1 200 OK").count == 4)
        }
    }

    @Test func verboseLogsOneLinePerRequestToStderrAndSilentDoesNot() async throws {
        for verbose in [true, false] {
            try await withSampleAPIProcess(arguments: verbose ? ["--verbose"] : []) { base, process async throws in
                for path in ["/api/health", "/api/users/42"] {
                    _ = try await CurlTransport.shared.send(TransportRequest(method: .get, url: base.appending(pathAndQuery: path)))
                }
                process.send(signal: SIGTERM)
                #expect(try await process.waitForExit() == .exited(0))
                let lines = process.standardError.split(separator: "\n")
                if verbose {
                    #expect(lines.count == 2)
                    #expect(lines.first?.hasPrefix("GET /api/health 200") == true)
                    #expect(lines.last?.hasPrefix("GET /api/users/42 404") == true)
                } else {
                    #expect(lines.isEmpty)
                }
            }
        }
    }
}
