import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

/// `cassette verify`: schema drift between the recordings and the live API, without re-recording.
///
/// Decisions (the help says the same): only safe methods by default; the report, its JSON and the
/// exit statuses are `cassette diff`'s (the recording plays the baseline, the live API the other
/// side); requests that get no answer make the run an input failure (status 2), after the report
/// of those that did; the store is opened for writing only with `--update`.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the recordings against the live API: schema drift without re-recording.",
        discussion: """
            Sends every recorded GET and HEAD request (once per request key, the most recent \
            recording) to the live API through libcurl, at most --concurrency at a time, and \
            compares the answers with the recordings as `cassette diff` compares two recordings: \
            the schema of ALL recordings of each endpoint against the schema of its live 2xx JSON \
            answers (fields, types, null, string formats; values never), plus statusClassChanged \
            (error) for each request whose live status class (2xx, 4xx, ...) differs from the \
            recorded one. Paths and queries move from the recorded upstream onto the live one; \
            recorded headers go along except those redacted at recording time (add credentials \
            with --header). --methods widens the set (POST, PUT, ... change data on the live \
            API; a warning says so).

            The live upstream is --upstream URL, or --env NAME from cassette.json; the cassette is \
            --cassette, else the --env name, else the store's only cassette, else dev. Output is \
            diff's: text blocks per endpoint and a summary, or --format json. Nothing is written \
            to the store unless --update, which re-records the requests of every endpoint with \
            findings at or above --fail-on (record mode all: earlier recordings of those requests \
            are replaced, secrets redacted as always).

            Exit status: 0 no findings at or above --fail-on, 1 findings at or above it (also \
            with --update), 2 usage or input errors, or requests that got no answer.

            Examples:
              cassette verify --env staging
              cassette verify --upstream https://api.example.com \\
                --header 'Authorization: Bearer $TOKEN'
              cassette verify --env staging --format json --fail-on warning
              cassette verify --env dev --update
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var upstreamOptions: UpstreamFlags

    @Option(help: ArgumentHelp("Methods to send, comma-separated (default: GET,HEAD). Others change data on the live API.", valueName: "list"))
    var methods: String?

    @Option(help: ArgumentHelp("Requests in flight at once.", valueName: "n"))
    var concurrency: Int = 4

    @Option(help: "Output format: text or json.")
    var format: DiffCommand.Format = .text

    @Option(help: "Exit with status 1 for findings of this severity or worse: error or warning.")
    var failOn: DiffCommand.FailOn = .error

    @Option(help: ArgumentHelp("Drop findings at this JSON path ($.meta) or endpoint path ('GET /api/users/{id}:$.email'); repeatable.", valueName: "path"))
    var ignore: [String] = []

    @Option(help: ArgumentHelp("A header for every live request ('Authorization: Bearer ...'); repeatable. Never stored or printed.", valueName: "field"))
    var header: [String] = []

    @Option(help: ArgumentHelp("Seconds each request may take.", valueName: "seconds"))
    var timeout: Int = 30

    @Flag(help: "Re-record the requests of endpoints with findings at or above --fail-on.")
    var update = false

    @OptionGroup var progressFlags: ProgressFlags

    func validate() throws {
        if !upstreamOptions.isGiven {
            throw ValidationError("verify needs the live API: pass --env NAME (from cassette.json) or --upstream URL")
        }
        if !(1...64).contains(concurrency) {
            throw ValidationError("--concurrency must be between 1 and 64, got \(concurrency)")
        }
        if timeout <= 0 { throw ValidationError("--timeout must be a positive number of seconds") }
        _ = try parsedMethods()
        _ = try parsedHeaders()
        for pattern in ignore {
            do {
                _ = try DriftIgnore(pattern)
            } catch {
                throw ValidationError("--ignore: \(error.description)")
            }
        }
    }

    func parsedMethods() throws -> Set<HTTPMethod> {
        guard let methods else { return LiveDriftCheck.defaultMethods }
        var result: Set<HTTPMethod> = []
        for token in methods.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !token.isEmpty {
            guard let method = HTTPMethod(token: token) else {
                let known = HTTPMethod.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("--methods: '\(token)' is not a method; use \(known)")
            }
            result.insert(method)
        }
        if result.isEmpty { throw ValidationError("--methods needs at least one method, such as GET,HEAD") }
        return result
    }

    func parsedHeaders() throws -> HTTPFields {
        var fields = HTTPFields()
        for text in header {
            let parts = text.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, let name = HTTPField.Name(parts[0].trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("--header needs 'Name: value', such as 'Authorization: Bearer TOKEN'")
            }
            fields.append(HTTPField(name: name, value: parts[1].trimmingCharacters(in: .whitespaces)))
        }
        return fields
    }

    func run() async throws {
        let settings = try store.loadConfig()
        let given = try upstreamOptions.all(settings)
        guard let upstream = given.first else { return }
        let methods = try parsedMethods()
        let unsafe = methods.subtracting(LiveDriftCheck.defaultMethods).map(\.rawValue).sorted()
        if !unsafe.isEmpty {
            Terminal.printWarning(
                "--methods includes \(unsafe.joined(separator: ", ")): recorded requests with these methods are sent to \(upstream.absoluteString) and may change data there"
            )
        }
        let progress = progressFlags.line()
        defer { progress.finish() }
        let recording = try await RecordingSource(path: settings.databasePath, cassette: store.cassette ?? upstreamOptions.env).load(
            progress: progress.step("reading", unit: "recordings"))
        let hosts = RecordedHosts(recording.interactions)
        var transportConfiguration = CurlTransport.Configuration()
        transportConfiguration.timeout = .seconds(timeout)
        transportConfiguration.maxConnections = concurrency
        let transport: CurlTransport
        do {
            transport = try CurlTransport(configuration: transportConfiguration)
        } catch {
            throw CLIError("libcurl could not start: \(error)")
        }
        // A multi-host cassette: each host's recordings go to the upstream given for it (the same
        // host, else the one at its position in the recorded list), each reported on its own.
        let recorded = hosts.isMultiHost ? try await OpenAPICommand.upstreams(of: recording) : []
        var outcomes: [(host: RecordedHosts.Host, upstream: URL, check: LiveDriftCheck, outcome: LiveDriftCheck.Outcome)] = []
        for host in hosts.hosts {
            let recordedUpstream: URL?
            let live: URL
            if let origin = host.origin {
                recordedUpstream = recorded.first { CassetteInfo.origin(of: $0) == origin } ?? URL(string: origin)
                let position = recorded.firstIndex { CassetteInfo.origin(of: $0) == origin }
                guard
                    let match = given.first(where: { CassetteInfo.origin(of: $0) == origin })
                        ?? position.flatMap({ $0 < given.count ? given[$0] : nil })
                else {
                    Terminal.printWarning("no upstream given for the recordings of \(origin); pass one --upstream per recorded host to verify them")
                    continue
                }
                live = match
            } else {
                recordedUpstream = try await OpenAPICommand.server(of: recording)
                live = upstream
            }
            let check = LiveDriftCheck(
                upstream: live, recordedUpstream: recordedUpstream, methods: methods, concurrency: concurrency,
                headers: try parsedHeaders(), ignoring: ignore.compactMap { try? DriftIgnore($0) }, timeout: .seconds(timeout)
            )
            let step = progress.step(host.origin.map { "verifying \($0)" } ?? "verifying", unit: "requests")
            outcomes.append((host, live, check, await check.run(host.interactions, transport: transport, progress: step)))
        }
        progress.finish()
        if outcomes.allSatisfy({ $0.outcome.exchanges.isEmpty }) {
            let list = methods.map(\.rawValue).sorted().joined(separator: ", ")
            throw CLIError.usage("cassette \(recording.cassette) in \(recording.path) has no \(list) recordings to verify; record some or widen --methods")
        }
        switch format {
        case .text:
            var lines: [String] = []
            for (index, entry) in outcomes.enumerated() {
                let answered = entry.outcome.exchanges.count - entry.outcome.failures.count
                let header =
                    "sent \(Formatting.count(entry.outcome.exchanges.count, "request")) to \(settings.redactor.redact(url: entry.upstream)) (\(answered) answered)"
                let recordedFrom = entry.host.origin.map { " for the recordings of \($0)" } ?? ""
                lines += (index > 0 ? [""] : []) + [header + recordedFrom, ""] + DriftReportText(sides: entry.check.sides).lines(for: entry.outcome.report)
            }
            Terminal.printLine(lines.joined(separator: "\n"))
        case .json:
            if hosts.isMultiHost {
                var byHost: [(String, JSONValue)] = []
                for entry in outcomes {
                    byHost.append((entry.host.origin ?? "", try JSONValue(parsing: Data(try DiffCommand.json(entry.outcome.report).utf8))))
                }
                Terminal.printLine(JSONValue.object(JSONObject(byHost)).prettyJSON)
            } else {
                Terminal.printLine(try DiffCommand.json(outcomes[0].outcome.report))
            }
        }
        if update {
            for entry in outcomes {
                try await reRecord(entry.outcome, settings: settings, cassette: recording.cassette, progress: progress)
            }
        }
        let failures = outcomes.flatMap(\.outcome.failures)
        if !failures.isEmpty {
            for failure in failures.prefix(10) {
                Terminal.printError("\(failure.request.method.rawValue) \(settings.redactor.redact(url: failure.request.url)): \(failure.error ?? "no answer")")
            }
            let total = outcomes.reduce(0) { $0 + $1.outcome.exchanges.count }
            let unanswering = outcomes.count == 1 ? settings.redactor.redact(url: outcomes[0].upstream) : "the upstreams"
            throw CLIError.usage(
                "\(failures.count) of \(total) requests got no answer from \(unanswering); check that it is up and reachable, or raise --timeout"
            )
        }
        if outcomes.contains(where: { $0.outcome.report.hasFindings(atOrAbove: failOn.severity) }) {
            throw ExitCode(1)
        }
    }

    /// A line about --update: on stdout with the text report, on stderr beside JSON.
    private func note(_ line: String) {
        if format == .json {
            StandardStream.error.write(line + "\n")
        } else {
            Terminal.printLine(line)
        }
    }

    /// Sends the drifted endpoints' requests again through a recording session (mode all).
    private func reRecord(_ outcome: LiveDriftCheck.Outcome, settings: CassetteConfigFile, cassette: String, progress: ProgressLine) async throws {
        let drifted = Set(outcome.report.endpoints.filter { entry in entry.findings.contains { $0.severity >= failOn.severity } }.compactMap(\.endpoint))
        let requests = outcome.exchanges.filter { exchange in
            guard exchange.response != nil, let url = URL(string: exchange.recorded.url) else { return false }
            return drifted.contains(Endpoint.of(method: exchange.recorded.method, url: url))
        }.map(\.request)
        guard !requests.isEmpty else {
            note("--update: nothing drifted, the store is unchanged")
            return
        }
        let store = try await store.openStore(settings, access: .readWrite)
        do {
            var transportConfiguration = CurlTransport.Configuration()
            transportConfiguration.timeout = .seconds(timeout)
            let recorder = try await RecordingTransport.open(
                store: store, cassette: cassette, mode: .all, upstream: try CurlTransport(configuration: transportConfiguration),
                matchingRules: settings.explicitMatchingRules, redactor: settings.redactor
            )
            let recorded = progress.step("re-recording", unit: "requests")
            for (index, request) in requests.enumerated() {
                _ = try await recorder.send(request)
                recorded?(index + 1, requests.count)
            }
            progress.finish()
            try await store.close()
        } catch {
            progress.finish()
            try? await store.close()
            throw CLIError("--update stopped: \(error); the requests recorded before it are kept")
        }
        note(
            "--update: re-recorded \(Formatting.count(requests.count, "request")) of \(Formatting.count(drifted.count, "drifted endpoint")) into cassette \(cassette)"
        )
    }
}
