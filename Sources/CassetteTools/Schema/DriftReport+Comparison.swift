import Foundation
import WellPlateCore
import WellPlateNetworking

extension DriftReport {
    /// Checks fixtures against the schemas of a recording.
    ///
    /// Each fixture is matched to endpoints: first to every route of `recorded.registry` whose
    /// fixture is its name (a GraphQL route to the recorded operations of its name); when no route names it, to every recorded endpoint whose
    /// `fallbackFixtureNames` include its name (the endpoint's `fixtureName`, or the default name of
    /// a concrete path recorded, such as `mock_api_users_1_get`). Each match is compared with
    /// `SchemaDiff`, the fixture's schema against the schema of all the endpoint's recordings.
    /// A fixture that matches nothing, or matches a route never recorded, gets the note
    /// `fixtureWithoutRecording`; a recorded endpoint that no fixture matched gets
    /// `endpointWithoutFixture`. `ignoring` drops findings (notes included) as `DriftIgnore` says.
    package static func compare(fixtures: [FixtureFile], recorded: EndpointSchemas, ignoring: [DriftIgnore] = []) -> DriftReport {
        var routed: [String: [Endpoint]] = [:]
        for route in recorded.registry?.registrations ?? [] {
            guard let name = route.operation else {
                routed[route.fixture, default: []].append(Endpoint(method: route.method, pattern: route.path))
                continue
            }
            // A route names the operation, not its type: the recorded endpoints say which it is.
            let operations = recorded.endpoints.filter { $0.isAnswered(by: route) }
            routed[route.fixture, default: []] += operations.isEmpty ? [Endpoint(method: route.method, pattern: route.path, operation: name)] : operations
        }
        var byFallbackName: [String: [Endpoint]] = [:]
        for endpoint in recorded.endpoints {
            for name in recorded.fallbackFixtureNames(for: endpoint) {
                byFallbackName[name, default: []].append(endpoint)
            }
        }

        var entries: [Entry] = []
        var covered: Set<Endpoint> = []
        for fixture in fixtures {
            // An operation carried inside WebSocket conversations (`OperationFixture`): its
            // payloads against the recordings of that operation.
            let operation = OperationFixture.operation(of: fixture.value)
            // A gRPC method's file (`GRPCMethodFixture`): its responses against the recordings
            // of that method, `POST /package.Service/Method`.
            let method = GRPCMethodFixture.method(of: fixture.value)
            let payloads = operation?.payloads ?? method?.responses
            let targets =
                operation.map { label in recorded.endpoints.filter { $0.operation == label.name } }
                ?? method.map { method in recorded.endpoints.filter { $0.method == .post && $0.pattern == method.path } }
                ?? routed[fixture.name] ?? byFallbackName[fixture.name] ?? []
            guard !targets.isEmpty else {
                let note = SchemaFinding(
                    path: .root, rule: .fixtureWithoutRecording, expected: "absent", actual: "present",
                    message: "no recorded endpoint matches this fixture (by \(MockResponseRegistry.fileName) or by name), so nothing checks it"
                )
                entries.append(Entry(endpoint: nil, fixture: fixture.fileName, recordings: 0, findings: filter([note], of: nil, ignoring)))
                continue
            }
            for endpoint in Set(targets).sorted() {
                // A GraphQL operation's recorded schema is its `data`; so is its fixture's.
                let fixtureSchema = InferredSchema(
                    samples: payloads.map { list in operation == nil ? list : list.map { $0["data"] ?? $0 } } ?? [
                        endpoint.operation != nil ? fixture.value["data"] ?? fixture.value : fixture.value
                    ])
                covered.insert(endpoint)
                guard let samples = recorded[endpoint] else {
                    let note = SchemaFinding(
                        path: .root, rule: .fixtureWithoutRecording, expected: "absent", actual: "present",
                        message: "\(MockResponseRegistry.fileName) routes \(endpoint) to this fixture, but no 2xx JSON response of it was recorded"
                    )
                    entries.append(Entry(endpoint: endpoint, fixture: fixture.fileName, recordings: 0, findings: filter([note], of: endpoint, ignoring)))
                    continue
                }
                let findings = diff(for: endpoint, ignoring, sides: .fixtureAndAPI).compare(fixture: fixtureSchema, api: samples.schema)
                entries.append(
                    Entry(
                        endpoint: endpoint, fixture: fixture.fileName, recordings: samples.recordings,
                        findings: findings + filter(graphQLErrorNotes(samples), of: endpoint, ignoring)))
            }
        }
        for endpoint in recorded.endpoints where !covered.contains(endpoint) {
            let samples = recorded[endpoint]!
            let message: String
            if let name = recorded.registeredFixture(for: endpoint) {
                message = "no fixture for this endpoint: \(MockResponseRegistry.fileName) routes it to \(name), and \(name).json does not exist"
            } else {
                message = "no fixture for this endpoint; harvest one as \(endpoint.fixtureName).json or route it in \(MockResponseRegistry.fileName)"
            }
            let note = SchemaFinding(path: .root, rule: .endpointWithoutFixture, expected: "present", actual: "absent", message: message)
            entries.append(Entry(endpoint: endpoint, fixture: nil, recordings: samples.recordings, findings: filter([note], of: endpoint, ignoring)))
        }
        return DriftReport(entries: entries, fixtures: fixtures.count, baselineEndpoints: nil, recordedEndpoints: recorded.samples.count)
    }

    /// Checks one recording against another, endpoint by endpoint: `baseline` plays the fixture
    /// (what clients were built against) and `current` the API. An endpoint only the baseline has
    /// gets the note `fixtureWithoutRecording`, one only `current` has `endpointWithoutFixture`.
    /// `sides` names the two recordings in the messages, such as `dev` and `staging`.
    package static func compare(baseline: EndpointSchemas, current: EndpointSchemas, sides: SchemaDiff.Sides, ignoring: [DriftIgnore] = []) -> DriftReport {
        let endpoints = Set(baseline.samples.keys).union(current.samples.keys).sorted()
        var entries: [Entry] = []
        for endpoint in endpoints {
            switch (baseline[endpoint], current[endpoint]) {
            case (let old?, let new?):
                let findings =
                    diff(for: endpoint, ignoring, sides: sides).compare(fixture: old.schema, api: new.schema)
                    + filter(graphQLErrorNotes(new), of: endpoint, ignoring)
                entries.append(Entry(endpoint: endpoint, fixture: nil, baselineRecordings: old.recordings, recordings: new.recordings, findings: findings))
            case (let old?, nil):
                let note = SchemaFinding(
                    path: .root, rule: .fixtureWithoutRecording, expected: "absent", actual: "present",
                    message: "\(sides.fixture) has 2xx JSON recordings of this endpoint, \(sides.api) has none"
                )
                entries.append(
                    Entry(endpoint: endpoint, fixture: nil, baselineRecordings: old.recordings, recordings: 0, findings: filter([note], of: endpoint, ignoring))
                )
            case (nil, let new?):
                let note = SchemaFinding(
                    path: .root, rule: .endpointWithoutFixture, expected: "present", actual: "absent",
                    message: "\(sides.api) has 2xx JSON recordings of this endpoint, \(sides.fixture) has none"
                )
                entries.append(
                    Entry(endpoint: endpoint, fixture: nil, baselineRecordings: 0, recordings: new.recordings, findings: filter([note], of: endpoint, ignoring))
                )
            case (nil, nil):
                break
            }
        }
        return DriftReport(entries: entries, fixtures: nil, baselineEndpoints: baseline.samples.count, recordedEndpoints: current.samples.count)
    }

    /// The note that a GraphQL operation's answers carried `errors`, which are not its schema.
    static func graphQLErrorNotes(_ samples: EndpointSchemas.Samples) -> [SchemaFinding] {
        guard samples.graphQLErrors > 0 else { return [] }
        let messages = samples.graphQLErrorMessages.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
        return [
            SchemaFinding(
                path: JSONPath.root.appending(key: "errors"), rule: .graphQLErrors, expected: "absent", actual: "present",
                message:
                    "GraphQL errors in \(samples.graphQLErrors) of \(samples.recordings) answers (\(messages)): the API's answer, not drift; data is compared without them"
            )
        ]
    }

    private static func diff(for endpoint: Endpoint, _ ignoring: [DriftIgnore], sides: SchemaDiff.Sides) -> SchemaDiff {
        SchemaDiff(ignoring: ignoring.filter { $0.applies(to: endpoint) }.map(\.path), sides: sides)
    }

    private static func filter(_ findings: [SchemaFinding], of endpoint: Endpoint?, _ ignoring: [DriftIgnore]) -> [SchemaFinding] {
        findings.filter { finding in !ignoring.contains { $0.drops(finding, of: endpoint) } }
    }
}
