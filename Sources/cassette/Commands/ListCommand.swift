import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `cassette list`: what a store holds, one line per recording or per cassette.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the recordings in a cassette store.",
        discussion: """
            One line per recording: id, cassette, method, the GraphQL operation (when any request \
            carried one: query GetUser), key, sequence (when a key was recorded more \
            than once), status, response body size and when it was recorded (ISO 8601, UTC), then one \
            summary line per cassette with the age of its oldest and newest recording. AGE is whole \
            days since recording. On a terminal the key column is cut with "…" to fit the width; \
            into a pipe or a file every line is whole. Show a recording with `cassette show KEY` or \
            `cassette show --id ID`.

            --older-than DAYS lists only recordings made more than DAYS days ago (candidates for \
            `cassette replay --max-age`). --unused-since DATE lists only recordings that no replay \
            served since DATE (YYYY-MM-DD or an ISO 8601 time); replays remember what they served \
            only with --track-usage (a plain replay never writes the store), so without it every \
            recording counts as unused.

            --json prints an array of objects with the keys ageDays, cassette, durationMs, id, key, \
            lastReplayedAt, method, recordedAt, replayCount, sequence, size (bytes) and status (and operation, \
            `query GetUser`, for a GraphQL request), sorted by cassette, key and sequence, then one \
            object per WebSocket conversation with "webSocket": true, ageDays, cassette, end, id, key, \
            received, recordedAt, sent, sequence, subprotocol and operations (each operation the \
            conversation carried: its name, `subscription Countdown`, variables and answers); with \
            --cassettes, objects with count (HTTP recordings), conversations (WebSocket), grpcCalls, \
            lastRecordedAt, name, size (bytes of bodies and message payloads) and upstream.

            WebSocket conversations are listed after the recordings, with an OPERATIONS column when \
            one carried GraphQL operations, JSON-RPC calls or Socket.IO acknowledged events.

            Examples:
              cassette list
              cassette list --cassette staging
              cassette list --cassettes
              cassette list --older-than 90
              cassette list --unused-since 2026-01-01
              cassette list --json | jq '.[] | select(.status >= 400) | .key'
            """
    )

    @OptionGroup var store: StoreOptions

    @Flag(help: "Print one line per cassette (name, upstream, recordings, gRPC calls, conversations, stored size) instead.")
    var cassettes = false

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @Option(help: ArgumentHelp("Only recordings made more than this many days ago.", valueName: "days"))
    var olderThan: Int?

    @Option(help: ArgumentHelp("Only recordings no replay served since this date (YYYY-MM-DD or ISO 8601); see --track-usage on replay.", valueName: "date"))
    var unusedSince: String?

    func validate() throws {
        if let olderThan, olderThan < 0 { throw ValidationError("--older-than must be a number of days, 0 or more; got \(olderThan)") }
        if let unusedSince, RecordingAge.date(unusedSince) == nil {
            throw ValidationError("--unused-since '\(unusedSince)' is not a date such as 2026-01-31 or 2026-01-31T12:00:00Z")
        }
        if cassettes && (olderThan != nil || unusedSince != nil) {
            throw ValidationError("--older-than and --unused-since select recordings; they do not apply to --cassettes")
        }
    }

    func run() async throws {
        let configFile = try store.loadConfig()
        let opened = try await store.openStore(configFile, access: .readOnly)
        let filter = store.cassette
        let wantsRecordings = !cassettes
        let wantsConversations = wantsRecordings
        let (allSummaries, cassetteList, usage, conversations, conversationUsage) = try await opened.use { store throws(CassetteStoreError) in
            (
                wantsRecordings ? try store.summaries(cassette: filter) : [], try store.cassettes(),
                wantsRecordings ? try store.usage(cassette: filter) : [:], wantsConversations ? try store.conversations(cassette: filter) : [],
                wantsConversations && unusedSince != nil ? try store.conversationUsage(cassette: filter) : [:]
            )
        }
        let now = Date()
        let ages = RecordingAge(now: now, usage: usage)
        var summaries = allSummaries
        if let olderThan {
            summaries = summaries.filter { ages.days($0) > olderThan }
        }
        var selectedConversations = conversations
        if let olderThan {
            selectedConversations = selectedConversations.filter { max(0, Int(now.timeIntervalSince($0.recordedAt) / 86_400)) > olderThan }
        }
        if let unusedSince, let date = RecordingAge.date(unusedSince) {
            summaries = summaries.filter { (usage[$0.id]?.lastReplayedAt).map { $0 < date } ?? true }
            selectedConversations = selectedConversations.filter { conversation in
                (conversation.id.flatMap { conversationUsage[$0]?.lastReplayedAt }).map { $0 < date } ?? true
            }
        }

        let path = configFile.databasePath
        let shown = cassetteList.filter { filter == nil || $0.name == filter }
        if let filter, shown.isEmpty, !cassetteList.isEmpty {
            throw CLIError(CassetteStoreError.missingCassette(filter, path: path, available: cassetteList.map(\.name)))
        }
        if cassettes {
            printCassettes(shown, path: path)
        } else {
            if json {
                let recordings = summaries.map { Self.json($0, ages: ages) }
                Terminal.printLine(JSONValue.array(recordings + selectedConversations.map { ConversationReport.json($0, now: now) }).prettyJSON)
                return
            }
            if !(summaries.isEmpty && !conversations.isEmpty) {
                printRecordings(summaries, of: allSummaries, cassettes: shown, path: path, ages: ages)
            }
            if !selectedConversations.isEmpty {
                Terminal.printLine(ConversationReport.table(selectedConversations).joined(separator: "\n"))
            }
            if (olderThan != nil || unusedSince != nil) && !conversations.isEmpty {
                let matched = selectedConversations.count
                // gRPC calls are conversations of the store too: named as what the store holds.
                let calls = conversations.filter { $0.grpc != nil }.count
                let noun = calls == conversations.count ? "gRPC call" : calls == 0 ? "WebSocket conversation" : "conversation"
                Terminal.printLine(
                    Terminal.paint(
                        "\(Formatting.count(matched, noun)) of \(conversations.count) \(matched == 1 ? "matches" : "match") \(selectionDescription).", .dim))
            }
        }
    }

    private func printRecordings(
        _ summaries: [InteractionSummary], of all: [InteractionSummary], cassettes: [CassetteSummary], path: String, ages: RecordingAge
    ) {
        if json {
            Terminal.printLine(JSONValue.array(summaries.map { Self.json($0, ages: ages) }).prettyJSON)
            return
        }
        guard !summaries.isEmpty else {
            if !all.isEmpty {
                Terminal.printLine("No recording in \(path) matches \(selectionDescription).")
            } else if let name = store.cassette, !cassettes.isEmpty {
                Terminal.printLine("Cassette \(name) in \(path) has no recordings.")
            } else {
                Terminal.printLine("\(path) has no recordings yet.")
            }
            return
        }
        let showSequence = summaries.contains { $0.sequence > 0 }
        // A GraphQL app's rows all share one URL: the operation tells them apart.
        let operations = summaries.map { GraphQLKeyPart(inKey: $0.key)?.label }
        let showOperation = operations.contains { $0 != nil }
        var columns: [TextTable.Column] = [
            .init(title: "ID", alignment: .right), .init(title: "CASSETTE"), .init(title: "METHOD"),
        ]
        if showOperation { columns.append(.init(title: "OPERATION")) }
        columns.append(.init(title: "KEY", shrinks: true))
        if showSequence { columns.append(.init(title: "SEQ", alignment: .right)) }
        columns += [
            .init(title: "STATUS", alignment: .right), .init(title: "SIZE", alignment: .right), .init(title: "RECORDED AT"),
            .init(title: "AGE", alignment: .right),
        ]
        var table = TextTable(columns)
        for (summary, operation) in zip(summaries, operations) {
            var row = [String(summary.id), summary.cassette, summary.method]
            if showOperation { row.append(operation ?? "-") }
            row.append(summary.key)
            if showSequence { row.append(String(summary.sequence)) }
            row += [String(summary.statusCode), Formatting.byteCount(summary.bodySize), Formatting.timestamp(summary.recordedAt), "\(ages.days(summary))d"]
            table.append(row)
        }
        let rendered = table.render(maxWidth: Terminal.outputWidth())
        var output = [Terminal.paint(rendered.header, .bold)] + rendered.lines + [""]
        let selected = olderThan != nil || unusedSince != nil
        if selected {
            output.append(
                Terminal.paint(
                    "\(Formatting.count(summaries.count, "recording")) of \(all.count) \(summaries.count == 1 ? "matches" : "match") \(selectionDescription).",
                    .dim))
        }
        for cassette in cassettes where cassette.interactionCount > 0 && !selected {
            var line =
                "\(cassette.name): \(Formatting.count(cassette.interactionCount, "recording")), \(Formatting.byteCount(cassette.bodyBytes)) of response bodies"
            if let upstream = cassette.upstream { line += ", recorded from \(upstream)" }
            let days = all.filter { $0.cassette == cassette.name }.map(ages.days)
            if let oldest = days.max(), let newest = days.min() {
                line += oldest == newest ? ", \(oldest) days old" : ", \(newest) to \(oldest) days old"
            }
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
        // gRPC calls and WebSocket conversations in columns of their own where the store has
        // any; SIZE is what all of them store (bodies and message payloads).
        let calls = cassettes.contains { $0.grpcCallCount > 0 }
        let conversations = cassettes.contains { $0.conversationCount > 0 }
        var columns: [TextTable.Column] = [
            .init(title: "CASSETTE"), .init(title: "UPSTREAM", shrinks: true), .init(title: "RECORDINGS", alignment: .right),
        ]
        if calls { columns.append(.init(title: "GRPC CALLS", alignment: .right)) }
        if conversations { columns.append(.init(title: "CONVERSATIONS", alignment: .right)) }
        columns += [.init(title: "SIZE", alignment: .right), .init(title: "LAST RECORDED")]
        var table = TextTable(columns)
        for cassette in cassettes {
            var row = [cassette.name, cassette.upstream ?? "-", String(cassette.interactionCount)]
            if calls { row.append(String(cassette.grpcCallCount)) }
            if conversations { row.append(String(cassette.conversationCount)) }
            row += [Formatting.byteCount(cassette.storedBytes), cassette.lastRecordedAt.map(Formatting.timestamp) ?? "-"]
            table.append(row)
        }
        let rendered = table.render(maxWidth: Terminal.outputWidth())
        Terminal.printLine(([Terminal.paint(rendered.header, .bold)] + rendered.lines).joined(separator: "\n"))
    }

    private var selectionDescription: String {
        var parts: [String] = []
        if let olderThan { parts.append("--older-than \(olderThan)") }
        if let unusedSince { parts.append("--unused-since \(unusedSince)") }
        return parts.joined(separator: " ")
    }

    static func json(_ summary: InteractionSummary, ages: RecordingAge) -> JSONValue {
        let usage = ages.usage[summary.id]
        let base: JSONValue = [
            "cassette": .string(summary.cassette),
            "method": .string(summary.method),
            "key": .string(summary.key),
            "sequence": .integer(Int64(summary.sequence)),
            "status": .integer(Int64(summary.statusCode)),
            "size": .integer(Int64(summary.bodySize)),
            "recordedAt": .string(Formatting.timestamp(summary.recordedAt)),
            "durationMs": .number(Formatting.milliseconds(summary.durationMilliseconds)),
            "id": .integer(summary.id),
            "ageDays": .integer(Int64(ages.days(summary))),
            "replayCount": .integer(Int64(usage?.replayCount ?? 0)),
            "lastReplayedAt": usage.map { .string(Formatting.timestamp($0.lastReplayedAt)) } ?? .null,
        ]
        guard let operation = GraphQLKeyPart(inKey: summary.key), case .object(var object) = base else { return base }
        object["operation"] = .string(operation.label)
        return .object(object)
    }

    static func json(_ cassette: CassetteSummary) -> JSONValue {
        [
            "name": .string(cassette.name),
            "upstream": cassette.upstream.map(JSONValue.string) ?? .null,
            "count": .integer(Int64(cassette.interactionCount)),
            "grpcCalls": .integer(Int64(cassette.grpcCallCount)),
            "conversations": .integer(Int64(cassette.conversationCount)),
            "size": .integer(Int64(cassette.storedBytes)),
            "lastRecordedAt": cassette.lastRecordedAt.map { .string(Formatting.timestamp($0)) } ?? .null,
        ]
    }
}
