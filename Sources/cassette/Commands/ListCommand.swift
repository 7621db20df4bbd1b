import ArgumentParser
import Foundation
import WellPlateNetworking

/// `cassette list`: what a store holds, one line per recording or per cassette.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the recordings in a cassette store.",
        discussion: """
            One line per recording: id, cassette, method, key, sequence (when a key was recorded more \
            than once), status, response body size and when it was recorded (ISO 8601, UTC), then one \
            summary line per cassette. On a terminal the key column is cut with "…" to fit the width; \
            into a pipe or a file every line is whole. Show a recording with `cassette show KEY` or \
            `cassette show --id ID`.

            --json prints an array of objects with the keys cassette, durationMs, id, key, method, \
            recordedAt, sequence, size (bytes) and status, sorted by cassette, key and sequence; with \
            --cassettes, objects with count, lastRecordedAt, name, size and upstream.

            Examples:
              cassette list
              cassette list --cassette staging
              cassette list --cassettes
              cassette list --json | jq '.[] | select(.status >= 400) | .key'
            """
    )

    @OptionGroup var store: StoreOptions

    @Flag(help: "Print one line per cassette (name, upstream, recordings, total body size) instead.")
    var cassettes = false

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    func run() async throws {
        let configFile = try store.loadConfig()
        let opened = try await store.openStore(configFile, access: .readOnly)
        let filter = store.cassette
        let wantsRecordings = !cassettes
        let (summaries, cassetteList) = try await opened.use { store throws(CassetteStoreError) in
            (wantsRecordings ? try store.summaries(cassette: filter) : [], try store.cassettes())
        }
        let path = configFile.databasePath
        let shown = cassetteList.filter { filter == nil || $0.name == filter }
        if let filter, shown.isEmpty, !cassetteList.isEmpty {
            throw CLIError(CassetteStoreError.missingCassette(filter, path: path, available: cassetteList.map(\.name)))
        }
        if cassettes {
            printCassettes(shown, path: path)
        } else {
            printRecordings(summaries, cassettes: shown, path: path)
        }
    }

    private func printRecordings(_ summaries: [InteractionSummary], cassettes: [CassetteSummary], path: String) {
        if json {
            Terminal.printLine(JSONValue.array(summaries.map(Self.json)).prettyJSON)
            return
        }
        guard !summaries.isEmpty else {
            if let name = store.cassette, !cassettes.isEmpty {
                Terminal.printLine("Cassette \(name) in \(path) has no recordings.")
            } else {
                Terminal.printLine("\(path) has no recordings yet.")
            }
            return
        }
        let showSequence = summaries.contains { $0.sequence > 0 }
        var columns: [TextTable.Column] = [
            .init(title: "ID", alignment: .right), .init(title: "CASSETTE"), .init(title: "METHOD"),
            .init(title: "KEY", shrinks: true),
        ]
        if showSequence { columns.append(.init(title: "SEQ", alignment: .right)) }
        columns += [.init(title: "STATUS", alignment: .right), .init(title: "SIZE", alignment: .right), .init(title: "RECORDED AT")]
        var table = TextTable(columns)
        for summary in summaries {
            var row = [String(summary.id), summary.cassette, summary.method, summary.key]
            if showSequence { row.append(String(summary.sequence)) }
            row += [String(summary.statusCode), Formatting.byteCount(summary.bodySize), Formatting.timestamp(summary.recordedAt)]
            table.append(row)
        }
        let rendered = table.render(maxWidth: Terminal.outputWidth())
        var output = [Terminal.paint(rendered.header, .bold)] + rendered.lines + [""]
        for cassette in cassettes where cassette.interactionCount > 0 {
            var line = "\(cassette.name): \(Formatting.count(cassette.interactionCount, "recording")), \(Formatting.byteCount(cassette.bodyBytes)) of response bodies"
            if let upstream = cassette.upstream { line += ", recorded from \(upstream)" }
            output.append(Terminal.paint(line, .dim))
        }
        // One write: a store of 100,000 recordings should not cost 100,000 flushes.
        Terminal.printLine(output.joined(separator: "\n"))
    }

    private func printCassettes(_ cassettes: [CassetteSummary], path: String) {
        if json {
            Terminal.printLine(JSONValue.array(cassettes.map(Self.json)).prettyJSON)
            return
        }
        guard !cassettes.isEmpty else {
            Terminal.printLine("\(path) has no cassettes yet.")
            return
        }
        var table = TextTable([
            .init(title: "CASSETTE"), .init(title: "UPSTREAM", shrinks: true), .init(title: "RECORDINGS", alignment: .right),
            .init(title: "SIZE", alignment: .right), .init(title: "LAST RECORDED"),
        ])
        for cassette in cassettes {
            table.append([
                cassette.name, cassette.upstream ?? "-", String(cassette.interactionCount),
                Formatting.byteCount(cassette.bodyBytes), cassette.lastRecordedAt.map(Formatting.timestamp) ?? "-",
            ])
        }
        let rendered = table.render(maxWidth: Terminal.outputWidth())
        Terminal.printLine(([Terminal.paint(rendered.header, .bold)] + rendered.lines).joined(separator: "\n"))
    }

    static func json(_ summary: InteractionSummary) -> JSONValue {
        [
            "cassette": .string(summary.cassette),
            "method": .string(summary.method),
            "key": .string(summary.key),
            "sequence": .integer(Int64(summary.sequence)),
            "status": .integer(Int64(summary.statusCode)),
            "size": .integer(Int64(summary.bodySize)),
            "recordedAt": .string(Formatting.timestamp(summary.recordedAt)),
            "durationMs": .number(Formatting.milliseconds(summary.durationMilliseconds)),
            "id": .integer(summary.id),
        ]
    }

    static func json(_ cassette: CassetteSummary) -> JSONValue {
        [
            "name": .string(cassette.name),
            "upstream": cassette.upstream.map(JSONValue.string) ?? .null,
            "count": .integer(Int64(cassette.interactionCount)),
            "size": .integer(Int64(cassette.bodyBytes)),
            "lastRecordedAt": cassette.lastRecordedAt.map { .string(Formatting.timestamp($0)) } ?? .null,
        ]
    }
}
