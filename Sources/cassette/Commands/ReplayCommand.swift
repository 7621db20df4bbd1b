import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import Logging
import WellPlateCore
import WellPlateNetworking

/// `cassette replay`: serves recordings with no backend at all.
struct ReplayCommand: AsyncParsableCommand, ServingCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Serve recorded responses with no backend (for CI and offline work).",
        discussion: """
            Answers every request from the cassette held in memory: status, headers and body \
            byte-for-byte as recorded. Identical requests get their recordings in recorded order, \
            then the last one again (--sequence changes that). A request without a recording gets \
            a \(404) whose JSON body names its normalized key and the nearest recordings, with the \
            header X-Cassette: miss. GET /__cassette/health and /__cassette/stats serve scripts.

            A cassette recorded from several upstreams is served by one listener per host, with \
            the same `listening on ... for UPSTREAM` lines: those of the --upstream list or the \
            environment's "upstreams" when given, else of every recorded host in the order each was \
            first recorded. With --forward it answers the clients of `record --forward` the same way, \
            forwarding nothing: a request without a recording gets the miss answer, and a CONNECT to \
            a host never recorded is refused with a status that says why.

            Examples:
              cassette replay
              cassette replay --forward
              cassette replay --port 0 --strict
              cassette replay --cassette staging --latency recorded
              cassette replay --on-miss passthrough --upstream http://127.0.0.1:8081
              cassette replay --on-miss record --upstream http://127.0.0.1:8081 \\
                --redact-all-cookies
              cassette replay --max-age 90 --stale fail --strict
            """
    )

    @OptionGroup var serving: ServingOptions
    @OptionGroup var replaying: ReplayFlags

    /// The proxy these flags describe; it reports through `logger` and writes its request
    /// lines to `requestLogDescriptor`. Tests start it in their own process with it.
    func makeRunner(logger: Logger = TerminalLogHandler.logger, requestLogDescriptor: Int32 = STDOUT_FILENO) throws -> ProxyRunner {
        try serving.makeRunner(mode: .replayOnly, replaying: replaying, logger: logger, requestLogDescriptor: requestLogDescriptor)
    }

    func run() async throws {
        try await ProxyLifecycle(runner: makeRunner()).serveUntilSignalled(strict: replaying.strict)
    }
}
