import ArgumentParser
import CassetteTools
import CassetteUI
import Foundation
import WellPlateCore

/// `cassette report --html OUT.html`: the web UI of a store as one file a CI job keeps.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write a store's recordings as one self-contained HTML file.",
        discussion: """
            The file holds the same read-only views as `cassette ui` (cassettes, recordings with \
            their filter, each recording's headers and bodies, the store's audit findings with \
            their values masked, and with --fixtures DIR the drift `cassette diff --fixtures DIR` \
            finds per endpoint) with the data inline: it opens from \
            file:// with no network, and its script runs only because its hash is in the page's \
            Content-Security-Policy. Bodies longer than 256 KiB are cut there. `cassette run \
            --report OUT.html -- COMMAND` writes the report of a run: every request COMMAND made, \
            misses with the nearest recordings, unused recordings, and the sessions it opened with \
            their journals (a store keeps no sessions: its report has none).

            Examples:
              cassette report --html report.html
              cassette report --html build/cassettes.html --db fixtures/cassettes.db
              cassette report --html report.html --fixtures Tests/Fixtures
            """
    )

    @OptionGroup var store: StoreOptions

    @Option(help: ArgumentHelp("Where to write the report.", valueName: "file"))
    var html: String

    @Option(help: ArgumentHelp("Fixtures to compare the recordings with, as `cassette diff --fixtures DIR` does (the Drift view).", valueName: "dir"))
    var fixtures: String?

    func validate() throws {
        if html.isEmpty { throw ValidationError("--html needs a file to write, e.g. --html report.html") }
        if fixtures?.isEmpty == true { throw ValidationError("--fixtures needs the directory that holds the fixtures") }
    }

    func run() async throws {
        let configFile = try store.loadConfig()
        let findings = UIFindings(fixtures: fixtures, cassette: store.cassette)
        try await findings.check(storePath: configFile.databasePath)
        let opened = try await store.openStore(configFile, access: .readOnly)
        var catalog = UICatalog(store: opened)
        catalog.findings = findings.provider(store: opened)
        do {
            try await ReportFile.write(HTMLReport(catalog: catalog), to: html)
        } catch {
            try? await opened.close()
            throw error
        }
        try? await opened.close()
        Terminal.printLine("report written to \(html)")
    }
}

/// Writes a report whole or not at all: a failed write leaves no half a file behind.
enum ReportFile {
    static func write(_ report: HTMLReport, to path: String) async throws(CLIError) {
        let text: String
        do {
            text = try await report.html()
        } catch let error as CassetteStoreError {
            throw CLIError(error)
        } catch {
            throw CLIError("could not make the report: \(error)")
        }
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CLIError("cannot write the report to \(path): \((error as NSError).localizedDescription); check the directory exists and is writable")
        }
    }
}
