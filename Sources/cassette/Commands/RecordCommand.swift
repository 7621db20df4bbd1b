import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import Logging
import WellPlateCore
import WellPlateNetworking

/// `cassette record`: a reverse proxy that forwards to the real API and records every exchange.
struct RecordCommand: AsyncParsableCommand, ServingCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Run a proxy that forwards to the real API and records every exchange.",
        discussion: """
            Point the app (or curl, a simulator, any HTTP client) at the printed address instead of \
            the API. Each answered request is committed to the store before the client gets it, so \
            stopping the proxy (Ctrl-C, SIGTERM) or a crash loses nothing already answered.

            Modes: once records a request only if the cassette has none for it (else replays); \
            missing (the default) replays what is recorded and records the rest, including repeats \
            beyond the recorded sequence; all forwards everything and replaces the cassette's \
            earlier recordings of each request.

            Several hosts: give --upstream once per host (or an environment's "upstreams" in \
            cassette.json). Each gets a listener of its own, announced as `listening on \
            http://HOST:PORT for UPSTREAM` in the order given (--port N gives N, N+1, ...; --port 0 \
            picks free ports), all recording into one cassette whose keys start with their origin; \
            a redirect from one host to another is served pointing at the other's listener.

            --forward: the clients' HTTP and HTTPS proxy instead. Plain HTTP requests are forwarded \
            to their host; HTTPS (CONNECT) is intercepted with a certificate for the host from the \
            local authority (`cassette ca`), forwarded with full verification (--cacert as usual) \
            and recorded. Hosts named by --passthrough-host, or outside every --host-filter, are \
            tunnelled untouched and never recorded; the log says which.

            Examples:
              cassette record --upstream http://127.0.0.1:8081
              cassette record --env dev --port 0
              cassette record --env staging --cassette staging-login --mode all
              cassette record --upstream https://api.example.com \\
                --upstream https://auth.example.com
              cassette record --forward --host-filter '*.example.com' \\
                --passthrough-host pay.example.com
            """
    )

    @OptionGroup var serving: ServingOptions

    @Option(help: ArgumentHelp("once, missing or all (see above).", valueName: "mode"))
    var mode: RecordModeOption = .missing

    func validate() throws {
        if !serving.canForward {
            throw ValidationError(
                "record needs an upstream: pass --env NAME (from cassette.json), --upstream URL, or --forward to record every host its clients call")
        }
    }

    /// The proxy these flags describe; it reports through `logger` and writes its request
    /// lines to `requestLogDescriptor`. Tests start it in their own process with it.
    func makeRunner(logger: Logger = TerminalLogHandler.logger, requestLogDescriptor: Int32 = STDOUT_FILENO) throws -> ProxyRunner {
        try serving.makeRunner(mode: mode.mode, logger: logger, requestLogDescriptor: requestLogDescriptor)
    }

    func run() async throws {
        try await ProxyLifecycle(runner: makeRunner()).serveUntilSignalled()
    }
}
