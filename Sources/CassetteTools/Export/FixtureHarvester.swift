import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

/// Turns recorded interactions into `MockAPIClient` fixtures: one fixture per endpoint (method and
/// path pattern), so that a mock over the fixtures answers the recorded requests with the values
/// the recordings hold.
///
/// - Each recording belongs to the route of `registry` that matches it, keeping that route's
///   pattern and fixture name (hand-made registries are respected); otherwise to the endpoint
///   `Endpoint.of(method:url:)` derives, with ids as `{id}`, named `Endpoint.fixtureName` (with
///   `_2`, `_3`, … appended when that name is already another endpoint's).
/// - Only 2xx responses with a JSON body become fixtures: a `Content-Type` whose media type is
///   `…/json` or `…+json`, or no `Content-Type` and a body that parses as JSON. Everything else is
///   reported as skipped, with the reason.
/// - Of several usable recordings for one fixture the most recent wins (latest `recordedAt`,
///   then highest row id).
/// - The body is written pretty-printed with sorted keys and a final newline, after the
///   redactor's JSON fields are replaced once more (the store holds bodies redacted with the
///   rules of recording time; the current rules may name more fields).
/// - The query is ignored, as `MockAPIClient` ignores it.
/// - A GraphQL operation recorded with two or more variables variants gets, beside its fixture
///   (the most recent answer, for any variables), one fixture per variant, whose route names the
///   variables (`GraphQLVariants`).
package struct FixtureHarvester: Sendable {
    /// Routes that already exist; recordings they match keep their pattern and fixture name.
    package var registry: MockResponseRegistry
    package var redactor: Redactor
    /// Its ignore rules leave members out of a GraphQL operation's variables, as keys do, so
    /// variables that differ only in ignored members are one variant.
    package var rules: MatchingRules

    package init(registry: MockResponseRegistry = MockResponseRegistry(), redactor: Redactor = .default, rules: MatchingRules = .default) {
        self.registry = registry
        self.redactor = redactor
        self.rules = rules
    }

    package func harvest(_ interactions: [Interaction]) -> FixtureHarvest {
        var groups: [Endpoint: EndpointRecordings] = [:]
        for interaction in interactions.sorted(by: Self.isMoreRecent) {
            let placement = place(interaction)
            var group = groups[placement.endpoint] ?? EndpointRecordings(fixture: placement.fixture)
            let outcome: Result<JSONValue, Unusable> = placement.problem.map { .failure($0) } ?? Self.fixtureValue(of: interaction)
            switch outcome {
            case .success(let value):
                group.usable.append((interaction, value))
            case .failure(let unusable):
                group.unusable.append(unusable.reason)
            }
            groups[placement.endpoint] = group
        }

        var skipped: [SkippedEndpoint] = []
        var byFixture: [String: [(Endpoint, EndpointRecordings)]] = [:]
        var taken = Set(registry.registrations.map(\.fixture))
        for (endpoint, group) in groups.sorted(by: { $0.key < $1.key }) {
            guard !group.usable.isEmpty else {
                skipped.append(SkippedEndpoint(endpoint: endpoint, reasons: Self.distinct(group.unusable), recordingCount: group.unusable.count))
                continue
            }
            let fixture = group.fixture ?? Self.unusedName(endpoint.fixtureName, taken: &taken)
            byFixture[fixture, default: []].append((endpoint, group))
        }

        var fixtures = byFixture.compactMap { fixture, members -> HarvestedFixture? in
            // Each member's list is newest first, so the newest overall is among their heads.
            let heads = members.compactMap { $0.1.usable.first }
            guard let (source, body) = heads.min(by: { Self.isMoreRecent($0.0, $1.0) }) else { return nil }
            let value = redactor.redact(json: body)
            return HarvestedFixture(
                fixture: fixture,
                endpoints: members.map(\.0),
                value: value,
                contents: Data((value.prettyJSON + "\n").utf8),
                recordingCount: members.reduce(0) { $0 + $1.1.usable.count },
                skippedCount: members.reduce(0) { $0 + $1.1.unusable.count },
                sourceID: source.id
            )
        }
        for (fixture, members) in byFixture.sorted(by: { $0.key < $1.key }) where members.count == 1 {
            fixtures += variantFixtures(of: members[0].0, recordings: members[0].1.usable, base: fixture, taken: &taken)
        }
        return FixtureHarvest(fixtures: fixtures.sorted(by: HarvestedFixture.fileOrder), skipped: skipped)
    }

    /// A fixture per variables variant of a GraphQL operation recorded with two or more, each
    /// the variant's most recent answer; none for other endpoints. A variant keeps the fixture
    /// name of a route that already names its variables.
    private func variantFixtures(
        of endpoint: Endpoint, recordings: [(Interaction, JSONValue)], base: String, taken: inout Set<String>
    ) -> [HarvestedFixture] {
        let variants = GraphQLVariants(endpoint: endpoint, recordings: recordings, rules: rules)
        guard variants.count >= 2 else { return [] }
        return variants.all.compactMap { variant -> HarvestedFixture? in
            guard let (source, body) = variant.recordings.first else { return nil }
            let route = registry.registrations.first { $0.variables == variant.variables && endpoint.isAnswered(by: $0) }
            let value = redactor.redact(json: body)
            return HarvestedFixture(
                fixture: route?.fixture ?? Self.unusedName(base + "_" + variant.nameSuffix, taken: &taken),
                endpoints: [endpoint],
                value: value,
                contents: Data((value.prettyJSON + "\n").utf8),
                recordingCount: variant.recordings.count,
                skippedCount: 0,
                sourceID: source.id,
                variables: variant.variables
            )
        }
    }

    // MARK: Rules

    /// Why a recording cannot become a fixture.
    struct Unusable: Error {
        var reason: String
    }

    private struct EndpointRecordings {
        /// The registry's name for the endpoint's fixture, if it has a route.
        var fixture: String?
        /// Most recent first.
        var usable: [(Interaction, JSONValue)] = []
        var unusable: [String] = []
    }

    private struct Placement {
        var endpoint: Endpoint
        var fixture: String?
        var problem: Unusable?
    }

    private func place(_ interaction: Interaction) -> Placement {
        if GraphQLKeyPart(inKey: interaction.key) != nil, let endpoint = Endpoint.of(recording: interaction) {
            // One fixture per GraphQL operation, whose route names the operation.
            guard !interaction.isPersistedQueryNotFound else {
                return Placement(
                    endpoint: endpoint,
                    problem: Unusable(reason: "a PersistedQueryNotFound answer: the server asked for the document, which the client sent next"))
            }
            // A route of the operation (hand-made, or written by an earlier export) keeps its fixture name.
            let route = registry.registrations.first { $0.variables == nil && endpoint.isAnswered(by: $0) }
            return Placement(endpoint: endpoint, fixture: route?.fixture)
        }
        guard let url = URL(string: interaction.url) else {
            let endpoint = Endpoint(method: interaction.method, pattern: interaction.url)
            return Placement(endpoint: endpoint, problem: Unusable(reason: "the recorded URL cannot be parsed"))
        }
        if let match = registry.match(url: url, method: interaction.method) {
            return Placement(endpoint: Endpoint(method: interaction.method, pattern: match.pattern.text), fixture: match.fixture)
        }
        let endpoint = Endpoint.of(method: interaction.method, url: url)
        do {
            _ = try PathPattern(endpoint.pattern)
        } catch {
            return Placement(endpoint: endpoint, problem: Unusable(reason: "the path cannot be a mock route (\(error.problem))"))
        }
        return Placement(endpoint: endpoint)
    }

    /// The recording's body as a fixture value, or why it cannot be one.
    static func fixtureValue(of interaction: Interaction) -> Result<JSONValue, Unusable> {
        let status = interaction.statusCode
        guard (200..<300).contains(status) else {
            return .failure(Unusable(reason: "status \(status): only 2xx responses become fixtures"))
        }
        guard !interaction.responseBody.isEmpty else {
            return .failure(Unusable(reason: "status \(status) with an empty body: MockAPIClient answers void requests without a fixture"))
        }
        let mediaType = interaction.responseHeaders[.contentType].map(Self.mediaType) ?? ""
        if !mediaType.isEmpty && !isJSON(mediaType: mediaType) {
            return .failure(Unusable(reason: "\(mediaType): not JSON"))
        }
        do {
            return .success(try JSONValue(parsing: interaction.responseBody))
        } catch {
            if mediaType.isEmpty {
                return .failure(Unusable(reason: "no Content-Type and the body is not JSON"))
            }
            return .failure(Unusable(reason: "\(mediaType) but not valid JSON (line \(error.line), column \(error.column): \(error.reason))"))
        }
    }

    /// The lower-cased `type/subtype` of a `Content-Type` value, without parameters.
    static func mediaType(_ contentType: String) -> String {
        let essence = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return essence.trimmingCharacters(in: .whitespaces).lowercased()
    }

    static func isJSON(mediaType: String) -> Bool {
        mediaType.hasSuffix("/json") || mediaType.hasSuffix("+json")
    }

    /// Latest `recordedAt` first; equal times (recordings within one clock tick) by row id.
    static func isMoreRecent(_ lhs: Interaction, _ rhs: Interaction) -> Bool {
        if lhs.recordedAt != rhs.recordedAt { return lhs.recordedAt > rhs.recordedAt }
        return (lhs.id ?? .min) > (rhs.id ?? .min)
    }

    private static func unusedName(_ name: String, taken: inout Set<String>) -> String {
        var candidate = name
        var suffix = 2
        while taken.contains(candidate) {
            candidate = "\(name)_\(suffix)"
            suffix += 1
        }
        taken.insert(candidate)
        return candidate
    }

    private static func distinct(_ reasons: [String]) -> [String] {
        var seen: Set<String> = []
        return reasons.filter { seen.insert($0).inserted }
    }
}

/// What `FixtureHarvester` made of a set of recordings.
package struct FixtureHarvest: Sendable, Equatable {
    /// Sorted by their first endpoint.
    package var fixtures: [HarvestedFixture]
    /// Endpoints none of whose recordings could become a fixture, sorted.
    package var skipped: [SkippedEndpoint]

    package init(fixtures: [HarvestedFixture], skipped: [SkippedEndpoint]) {
        self.fixtures = fixtures
        self.skipped = skipped
    }
}

/// One fixture file to write, and the endpoints it answers.
package struct HarvestedFixture: Sendable, Equatable {
    /// The fixture's name (the file is `fileName`).
    package let fixture: String
    /// Usually one; several when the registry maps more than one route to this fixture.
    package let endpoints: [Endpoint]
    /// The most recent usable recording's body, redacted.
    package let value: JSONValue
    /// `value` pretty-printed with sorted keys and a final newline: the file's bytes.
    package let contents: Data
    /// How many recordings could have become this fixture.
    package let recordingCount: Int
    /// How many recordings of its endpoints could not (error statuses, non-JSON bodies).
    package let skippedCount: Int
    /// The row id of the recording the fixture was made from.
    package let sourceID: Int64?
    /// For one variables variant of a GraphQL operation, its variables (which its route names);
    /// `nil` for every other fixture.
    package var variables: JSONValue? = nil

    package var fileName: String { fixture + ".json" }

    /// By first endpoint; an operation's fixture before its variants', which go by name.
    static func fileOrder(_ lhs: HarvestedFixture, _ rhs: HarvestedFixture) -> Bool {
        if lhs.endpoints[0] != rhs.endpoints[0] { return lhs.endpoints[0] < rhs.endpoints[0] }
        if (lhs.variables == nil) != (rhs.variables == nil) { return lhs.variables == nil }
        return lhs.fixture < rhs.fixture
    }

    /// The registry routes that answer with this fixture: a method and a path, and for a GraphQL
    /// operation its name (a route of `POST` answers the operation's GET form too). A batch gets
    /// none: one fixture cannot answer several operations.
    package var routes: [MockRoute] {
        endpoints.compactMap { endpoint in
            guard endpoint.operation != nil else { return try? MockRoute(method: endpoint.method, path: endpoint.pattern, fixture: fixture) }
            guard endpoint.operation?.hasPrefix("batch ") == false else { return nil }
            return try? MockRoute(
                method: endpoint.method, path: endpoint.pattern, operation: endpoint.operationName, variables: variables, fixture: fixture)
        }
    }
}

/// An endpoint that was recorded but gets no fixture, and why.
package struct SkippedEndpoint: Sendable, Equatable {
    package let endpoint: Endpoint
    /// Distinct reasons, most recent recording's first.
    package let reasons: [String]
    package let recordingCount: Int

    package init(endpoint: Endpoint, reasons: [String], recordingCount: Int) {
        self.endpoint = endpoint
        self.reasons = reasons
        self.recordingCount = recordingCount
    }

    package var reason: String { reasons.joined(separator: "; ") }
}
