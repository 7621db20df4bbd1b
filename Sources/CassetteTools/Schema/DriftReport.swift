import Foundation
import WellPlateCore
import WellPlateNetworking

/// The result of a drift check, endpoint by endpoint: what `cassette diff` prints.
///
/// Two kinds of check share it. Fixtures against a recording: each fixture is matched to its
/// endpoint (see `compare(fixtures:recorded:ignoring:)`) and its schema compared with the schema
/// of every recorded response of that endpoint. Two recordings (dev against staging, last week
/// against today): the baseline plays the fixture's part and the other recording the API's.
///
/// Encodes to JSON with the keys `endpoints` and `summary`; each entry has `endpoint`
/// (`"GET /api/users/{id}"`, or `null` for a fixture that matched no endpoint), `fixture` (its
/// file, relative to the fixtures directory, or `null`), `baselineRecordings` (`null` outside
/// two-recording checks), `recordings` and `findings` (`SchemaFinding`s). Keys absent from a
/// check are written as `null`, so tools see the same keys every time.
package struct DriftReport: Sendable, Hashable, Codable {
    /// One fixture compared with one endpoint, or one side's endpoint that the other lacks.
    package struct Entry: Sendable, Hashable, Codable {
        package var endpoint: Endpoint?
        /// The fixture file relative to the fixtures directory, such as `users/list.json`.
        package var fixture: String?
        /// Contributing recordings of the baseline, in a two-recording check.
        package var baselineRecordings: Int?
        /// Contributing recordings (of the recording that plays the API).
        package var recordings: Int
        /// Sorted by path, then rule.
        package var findings: [SchemaFinding]
        /// `verify` only: the requests (method, path and query, redacted as stored) whose live
        /// answer drifted from their own recording, so the one to look at is named, not only
        /// its endpoint's template. Written only when set.
        package var requests: [String]?

        package init(endpoint: Endpoint?, fixture: String?, baselineRecordings: Int? = nil, recordings: Int, findings: [SchemaFinding]) {
            self.endpoint = endpoint
            self.fixture = fixture
            self.baselineRecordings = baselineRecordings
            self.recordings = recordings
            self.findings = findings
        }

        package func count(_ severity: SchemaFinding.Severity) -> Int {
            findings.count { $0.severity == severity }
        }

        private enum CodingKeys: String, CodingKey {
            case endpoint, fixture, baselineRecordings, recordings, findings, requests
        }

        package init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if let text = try container.decodeIfPresent(String.self, forKey: .endpoint) {
                guard let endpoint = Endpoint(description: text) else {
                    throw DecodingError.dataCorruptedError(forKey: .endpoint, in: container, debugDescription: "\"\(text)\" is not METHOD /pattern")
                }
                self.endpoint = endpoint
            }
            fixture = try container.decodeIfPresent(String.self, forKey: .fixture)
            baselineRecordings = try container.decodeIfPresent(Int.self, forKey: .baselineRecordings)
            recordings = try container.decode(Int.self, forKey: .recordings)
            findings = try container.decode([SchemaFinding].self, forKey: .findings)
            requests = try container.decodeIfPresent([String].self, forKey: .requests)
        }

        package func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            // `encode` rather than `encodeIfPresent`: an absent value is written as null.
            try container.encode(endpoint?.description, forKey: .endpoint)
            try container.encode(fixture, forKey: .fixture)
            try container.encode(baselineRecordings, forKey: .baselineRecordings)
            try container.encode(recordings, forKey: .recordings)
            try container.encode(findings, forKey: .findings)
            try container.encodeIfPresent(requests, forKey: .requests)
        }

        /// Endpoints in `Endpoint` order, then fixtures by name; fixtures without an endpoint last.
        static func order(_ lhs: Entry, _ rhs: Entry) -> Bool {
            switch (lhs.endpoint, rhs.endpoint) {
            case (let a?, let b?) where a != b: return a < b
            case (.some, nil): return true
            case (nil, .some): return false
            default: return (lhs.fixture ?? "").utf8.lexicographicallyPrecedes((rhs.fixture ?? "").utf8)
            }
        }
    }

    /// The counts a summary line prints.
    package struct Summary: Sendable, Hashable, Codable {
        package var errors: Int
        package var warnings: Int
        package var notes: Int
        /// Endpoints with at least one finding, each counted once however many fixtures it was
        /// compared with (a GraphQL operation's variables variants); a fixture that matched no
        /// endpoint counts as one.
        package var endpoints: Int
        /// Fixture files checked; `nil` in a two-recording check.
        package var fixtures: Int?
        /// Endpoints of the baseline recording; `nil` in a fixture check.
        package var baselineEndpoints: Int?
        /// Endpoints with at least one 2xx JSON recording (of the recording that plays the API).
        package var recordedEndpoints: Int

        private enum CodingKeys: String, CodingKey {
            case errors, warnings, notes, endpoints, fixtures, baselineEndpoints, recordedEndpoints
        }

        package init(errors: Int, warnings: Int, notes: Int, endpoints: Int, fixtures: Int?, baselineEndpoints: Int?, recordedEndpoints: Int) {
            self.errors = errors
            self.warnings = warnings
            self.notes = notes
            self.endpoints = endpoints
            self.fixtures = fixtures
            self.baselineEndpoints = baselineEndpoints
            self.recordedEndpoints = recordedEndpoints
        }

        package func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(errors, forKey: .errors)
            try container.encode(warnings, forKey: .warnings)
            try container.encode(notes, forKey: .notes)
            try container.encode(endpoints, forKey: .endpoints)
            try container.encode(fixtures, forKey: .fixtures)
            try container.encode(baselineEndpoints, forKey: .baselineEndpoints)
            try container.encode(recordedEndpoints, forKey: .recordedEndpoints)
        }
    }

    /// Every comparison made, clean ones included, in a stable order.
    package var endpoints: [Entry]
    package var summary: Summary

    /// A report over `entries` (sorted here), with the summary counted from them.
    package init(entries: [Entry], fixtures: Int?, baselineEndpoints: Int?, recordedEndpoints: Int) {
        endpoints = entries.sorted(by: Entry.order)
        let findings = entries.flatMap(\.findings)
        summary = Summary(
            errors: findings.count { $0.severity == .error },
            warnings: findings.count { $0.severity == .warning },
            notes: findings.count { $0.severity == .note },
            endpoints: Set(entries.filter { !$0.findings.isEmpty }.map { $0.endpoint?.description ?? "fixture " + ($0.fixture ?? "") }).count,
            fixtures: fixtures,
            baselineEndpoints: baselineEndpoints,
            recordedEndpoints: recordedEndpoints
        )
    }

    /// Every finding, entry by entry.
    package var findings: [SchemaFinding] { endpoints.flatMap(\.findings) }

    /// Whether any finding is at least as severe as `threshold`: what makes a check fail.
    package func hasFindings(atOrAbove threshold: SchemaFinding.Severity) -> Bool {
        endpoints.contains { $0.findings.contains { $0.severity >= threshold } }
    }
}
