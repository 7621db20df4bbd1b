import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

/// Sends recorded requests to the live API and compares what comes back with the recordings:
/// `cassette verify`, drift without re-recording.
///
/// - Requests: every recording whose method is in `methods` (GET and HEAD by default: they change
///   nothing), once per request key (the most recent recording), its path and query moved from the
///   recorded upstream onto `upstream`. Recorded headers go along except framing headers and any
///   whose value the redactor replaced (a `REDACTED` token would only be refused); `headers` adds
///   or replaces fields, for credentials.
/// - Comparison: the schema of ALL recordings of each endpoint against the schema of its live
///   answers, with `SchemaDiff`'s rules (the recording plays the baseline, the live API the API),
///   plus `statusClassChanged` for each request whose live status class differs from the
///   recorded one. Values are never compared.
/// - At most `concurrency` requests are in flight at once.
package struct LiveDriftCheck: Sendable {
    /// One request sent and what came back.
    package struct Exchange: Sendable {
        /// The recording the request was built from.
        package var recorded: Interaction
        package var request: TransportRequest
        /// `nil` when no HTTP answer came (see `error`).
        package var response: TransportResponse?
        package var error: String?
    }

    package struct Outcome: Sendable {
        package var report: DriftReport
        /// In the order of the recorded request keys.
        package var exchanges: [Exchange]
        package var failures: [Exchange] { exchanges.filter { $0.response == nil } }
    }

    package static let defaultMethods: Set<HTTPMethod> = [.get, .head]

    package var upstream: URL
    /// The base URL the recordings were made against; its path is taken off recorded paths.
    package var recordedUpstream: URL?
    package var methods: Set<HTTPMethod>
    package var concurrency: Int
    package var headers: HTTPFields
    package var ignoring: [DriftIgnore]
    package var timeout: Duration?
    package var sides = SchemaDiff.Sides(fixture: "recording", api: "live API", theFixture: "the recording", theAPI: "the live API")

    package init(
        upstream: URL, recordedUpstream: URL? = nil, methods: Set<HTTPMethod> = defaultMethods, concurrency: Int = 4, headers: HTTPFields = [:],
        ignoring: [DriftIgnore] = [], timeout: Duration? = nil
    ) {
        self.upstream = upstream
        self.recordedUpstream = recordedUpstream
        self.methods = methods
        self.concurrency = max(1, concurrency)
        self.headers = headers
        self.ignoring = ignoring
        self.timeout = timeout
    }

    /// The requests `run` sends: one per recorded key, most recent recording, in key order.
    package func requests(for interactions: [Interaction]) -> [(Interaction, TransportRequest)] {
        var latest: [String: Interaction] = [:]
        for interaction in interactions where methods.contains(interaction.method) {
            if let current = latest[interaction.key], (current.recordedAt, current.id ?? 0) >= (interaction.recordedAt, interaction.id ?? 0) { continue }
            latest[interaction.key] = interaction
        }
        return latest.keys.sorted().compactMap { key in
            guard let interaction = latest[key], let request = request(for: interaction) else { return nil }
            return (interaction, request)
        }
    }

    /// The live request for a recording, or `nil` when its URL does not parse.
    package func request(for interaction: Interaction) -> TransportRequest? {
        guard let recorded = URLComponents(string: interaction.url) else { return nil }
        var path = recorded.percentEncodedPath
        if let base = recordedUpstream?.path(percentEncoded: true), base != "/", !base.isEmpty {
            let prefix = base.hasSuffix("/") ? String(base.dropLast()) : base
            if path.hasPrefix(prefix + "/") || path == prefix { path = String(path.dropFirst(prefix.count)) }
        }
        var target = upstream.absoluteString
        if target.hasSuffix("/") { target.removeLast() }
        target += path.hasPrefix("/") ? path : "/" + path
        if let query = recorded.percentEncodedQuery { target += "?" + query }
        guard let url = URL(string: target) else { return nil }
        var fields = HTTPFields()
        for field in interaction.requestHeaders
        where !HTTPFraming.unforwardedRequestHeaders.contains(field.name.canonicalName) && !field.value.contains(Redactor.placeholder)
            && headers[field.name] == nil
        {
            fields.append(field)
        }
        fields.append(contentsOf: headers)
        return TransportRequest(method: interaction.method, url: url, headerFields: fields, body: interaction.requestBody, timeout: timeout)
    }

    /// Sends the planned requests, at most `concurrency` at a time; `progress` hears of each
    /// answer (or failure) as it comes.
    package func run(_ interactions: [Interaction], transport: any HTTPTransport, progress: ProgressHandler? = nil) async -> Outcome {
        let planned = requests(for: interactions)
        var exchanges = [Exchange?](repeating: nil, count: planned.count)
        await withTaskGroup(of: (Int, Exchange).self) { group in
            var next = 0
            func startNext() {
                guard next < planned.count else { return }
                let index = next
                let (recorded, request) = planned[index]
                next += 1
                group.addTask {
                    do {
                        let response = try await transport.send(request)
                        return (index, Exchange(recorded: recorded, request: request, response: response))
                    } catch {
                        return (index, Exchange(recorded: recorded, request: request, response: nil, error: String(describing: error)))
                    }
                }
            }
            for _ in 0..<concurrency { startNext() }
            progress?(0, planned.count)
            var answered = 0
            while let (index, exchange) = await group.next() {
                exchanges[index] = exchange
                answered += 1
                progress?(answered, planned.count)
                startNext()
            }
        }
        let done = exchanges.compactMap { $0 }
        return Outcome(report: report(recorded: interactions, exchanges: done), exchanges: done)
    }

    /// The drift report of a finished run.
    package func report(recorded interactions: [Interaction], exchanges: [Exchange]) -> DriftReport {
        let baseline = EndpointSchemas(interactions: interactions.filter { methods.contains($0.method) })
        var liveRecordings: [Interaction] = []
        var statusFindings: [Endpoint: [SchemaFinding]] = [:]
        var answers: [Endpoint: Int] = [:]
        var drifted: [Endpoint: [String]] = [:]
        for exchange in exchanges {
            guard let response = exchange.response, let url = URL(string: exchange.recorded.url) else { continue }
            let endpoint = Endpoint.of(method: exchange.recorded.method, url: url)
            answers[endpoint, default: 0] += 1
            var live = exchange.recorded
            live.statusCode = response.statusCode
            live.responseHeaders = response.headerFields
            live.responseBody = response.body
            liveRecordings.append(live)
            if drifts(live, from: exchange.recorded, endpoint: endpoint) {
                drifted[endpoint, default: []].append("\(exchange.recorded.method.rawValue) \(Self.target(of: exchange.recorded.url))")
            }
            let before = exchange.recorded.statusCode / 100, after = response.statusCode / 100
            guard before != after else { continue }
            let target = RequestPath(url: url).description
            let finding = SchemaFinding(
                path: .root, rule: .statusClassChanged, expected: "\(after)xx", actual: "\(before)xx",
                message:
                    "status changed for \(exchange.recorded.method.rawValue) \(target): \(sides.fixture) has \(exchange.recorded.statusCode), \(sides.api) answers \(response.statusCode)"
            )
            if !ignoring.contains(where: { $0.drops(finding, of: endpoint) }) {
                statusFindings[endpoint, default: []].append(finding)
            }
        }
        let current = EndpointSchemas(interactions: liveRecordings)
        let schemaReport = DriftReport.compare(baseline: baseline, current: current, sides: sides, ignoring: ignoring)
        var entries = schemaReport.endpoints
        for (endpoint, findings) in statusFindings {
            if let index = entries.firstIndex(where: { $0.endpoint == endpoint }) {
                entries[index].findings = (entries[index].findings + findings).sorted()
            } else {
                let recorded = interactions.filter { interaction in
                    URL(string: interaction.url).map { Endpoint.of(method: interaction.method, url: $0) == endpoint } ?? false
                }
                entries.append(
                    DriftReport.Entry(
                        endpoint: endpoint, fixture: nil, baselineRecordings: recorded.count, recordings: answers[endpoint] ?? 0, findings: findings.sorted()))
            }
        }
        for index in entries.indices {
            guard let endpoint = entries[index].endpoint, !entries[index].findings.isEmpty else { continue }
            entries[index].requests = (drifted[endpoint] ?? []).sorted()
        }
        return DriftReport(entries: entries, fixtures: nil, baselineEndpoints: baseline.samples.count, recordedEndpoints: current.samples.count)
    }

    /// Path and query of a stored (redacted) URL, as the request was sent.
    static func target(of url: String) -> String {
        guard let components = URLComponents(string: url) else { return url }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return components.percentEncodedQuery.map { path + "?" + $0 } ?? path
    }

    /// Whether one live answer differs from its own request's recording: its status class, or
    /// its schema (findings the check does not ignore).
    private func drifts(_ live: Interaction, from recorded: Interaction, endpoint: Endpoint) -> Bool {
        if live.statusCode / 100 != recorded.statusCode / 100 { return true }
        let own = DriftReport.compare(
            baseline: EndpointSchemas(interactions: [recorded]), current: EndpointSchemas(interactions: [live]), sides: sides, ignoring: ignoring)
        return own.endpoints.contains { !$0.findings.isEmpty }
    }
}
