import Foundation
import WellPlateCore
import WellPlateNetworking

extension DriftReport {
    /// One host's side of a multi-host check: its recordings and the fixtures kept for it
    /// (`DIR/HOST`, as `cassette export --fixtures` writes a multi-host cassette).
    package struct HostFixtures: Sendable {
        package let host: RecordedHosts.Host
        package let fixtures: [FixtureFile]
        package let registry: MockResponseRegistry?

        package init(host: RecordedHosts.Host, fixtures: [FixtureFile], registry: MockResponseRegistry?) {
            self.host = host
            self.fixtures = fixtures
            self.registry = registry
        }
    }

    /// Fixtures against a multi-host recording, host by host: each host's fixtures are matched
    /// only to its own endpoints, so the same path on two hosts is checked against the right
    /// fixture. Endpoints are named with their origin and fixtures with their host's directory.
    package static func compare(hosts: [HostFixtures], ignoring: [DriftIgnore] = []) -> DriftReport {
        var entries: [Entry] = []
        var fixtureCount = 0
        var recordedEndpoints = 0
        for side in hosts {
            let recorded = EndpointSchemas(interactions: side.host.interactions, registry: side.registry)
            let report = compare(fixtures: side.fixtures, recorded: recorded, ignoring: ignoring)
            let origin = side.host.origin ?? ""
            let directory = side.host.directoryName
            for var entry in report.endpoints {
                entry.endpoint = entry.endpoint.map { Endpoint(method: $0.method, pattern: origin + $0.pattern) }
                entry.fixture = entry.fixture.map { directory.isEmpty ? $0 : directory + "/" + $0 }
                entries.append(entry)
            }
            fixtureCount += side.fixtures.count
            recordedEndpoints += report.summary.recordedEndpoints
        }
        return DriftReport(entries: entries, fixtures: fixtureCount, baselineEndpoints: nil, recordedEndpoints: recordedEndpoints)
    }
}
