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
            their filter, each recording's headers and bodies) with the data inline: it opens from \
            file:// with no network, and its script runs only because its hash is in the page's \
            Content-Security-Policy. Bodies longer than 256 KiB are cut there. `cassette run \
            --report OUT.html -- COMMAND` writes the report of a run: every request COMMAND made, \
            misses with the nearest recordings, unused recordings.

            Examples:
              cassette report --html report.html
              cassette report --html build/cassettes.html --db fixtures/cassettes.db
            """
    )

    @OptionGroup var store: StoreOptions

    @Option(help: ArgumentHelp("Where to write the report.", valueName: "file"))
    var html: String

    func validate() throws {
        if html.isEmpty { throw ValidationError("--html needs a file to write, e.g. --html report.html") }
    }

    func run() async throws {
        let configFile = try store.loadConfig()
        let opened = try await store.openStore(configFile, access: .readOnly)
        do {
            try await ReportFile.write(HTMLReport(catalog: UICatalog(store: opened)), to: html)
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
