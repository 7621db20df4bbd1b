import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import CassetteUIServer
import Foundation
import WellPlateCore

/// `cassette ui`: the web UI of a store, on a port of its own, until SIGINT or SIGTERM.
struct UICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ui",
        abstract: "Browse a cassette store in a web browser.",
        discussion: """
            Serves the web UI for the store and prints `ui on http://127.0.0.1:PORT/`: its \
            cassettes, its recordings with a filter kept in the page's URL, each recording's \
            headers and bodies, and the Drift view: the store's audit findings (values masked) \
            and, with --fixtures DIR, the drift `cassette diff --fixtures DIR` finds per endpoint. `record`, `replay` and `run` serve the same UI at /__cassette/ui/ \
            on their main port, with a Live view of the requests they serve. The page works with \
            no network: it is compiled into cassette.

            Only this machine can reach it unless --host names another address; then the UI \
            answers 401 to any client, this machine's included, that does not show the token \
            printed once inside the URL (?token=...).

            Examples:
              cassette ui
              cassette ui --db fixtures/cassettes.db --port 8090 --open
              cassette ui --fixtures Tests/Fixtures
            """
    )

    @OptionGroup var store: StoreOptions

    @Option(help: ArgumentHelp("The port to listen on; 0 picks a free one.", valueName: "port"))
    var port: Int = 0

    @Option(help: ArgumentHelp("The address to listen on. Anything but loopback needs the printed token.", valueName: "host"))
    var host: String = "127.0.0.1"

    @Option(help: ArgumentHelp("Fixtures to compare the recordings with, as `cassette diff --fixtures DIR` does (the Drift view).", valueName: "dir"))
    var fixtures: String?

    @Flag(help: "Open the UI in the default browser (xdg-open, or open on macOS).")
    var open = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535; got \(port)") }
        if host.isEmpty { throw ValidationError("--host needs an address such as 127.0.0.1") }
        if fixtures?.isEmpty == true { throw ValidationError("--fixtures needs the directory that holds the fixtures") }
    }

    func run() async throws {
        let configFile = try store.loadConfig()
        let findings = UIFindings(fixtures: fixtures, cassette: store.cassette)
        try await findings.check(storePath: configFile.databasePath)
        let opened = try await store.openStore(configFile, access: .readOnly)
        let server: UIServer
        do {
            server = try await UIServer.start(store: opened, host: host, port: port, findings: findings.provider(store: opened))
        } catch {
            try? await opened.close()
            throw CLIError(error.message)
        }
        // Flushed at once: a script waits for this line to learn the port.
        Terminal.printLine("ui on \(server.url)")
        let signals = SignalWaiter()
        if open { openInBrowser(server.url) }
        _ = await signals.next()
        signals.cancel()
        await server.stop()
        try? await opened.close()
    }

    private func openInBrowser(_ url: String) {
        #if os(macOS)
        let opener = "/usr/bin/open"
        #else
        let opener = "/usr/bin/xdg-open"
        #endif
        guard FileManager.default.isExecutableFile(atPath: opener) else {
            StandardStream.error.write("warning: cannot open a browser (\(opener) is missing); open \(url) yourself\n")
            return
        }
        var pid = pid_t()
        let arguments = [opener, url]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        if posix_spawn(&pid, opener, nil, nil, argv, environ) != 0 {
            StandardStream.error.write("warning: \(opener) did not start; open \(url) yourself\n")
        }
    }
}
