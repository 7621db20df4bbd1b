import Foundation
import WellPlateCore
import WellPlateNetworking

extension EndpointSchemas {
    /// The schemas of a cassette's recordings as `cassette diff` compares them: a multi-host
    /// cassette's endpoints are grouped per host and named with its origin
    /// (`GET https://api.example.com/v1/me`), so the same path on two hosts stays two endpoints;
    /// a single-host cassette's exactly as `init(interactions:registry:)` groups them.
    package init(hostsOf interactions: [Interaction], registry: MockResponseRegistry? = nil) {
        let hosts = RecordedHosts(interactions)
        guard hosts.isMultiHost else {
            self.init(interactions: interactions, registry: registry)
            return
        }
        self.init(registry: registry)
        for host in hosts.hosts {
            for (endpoint, samples) in EndpointSchemas(interactions: host.interactions, registry: registry).samples {
                self.samples[Endpoint(method: endpoint.method, pattern: (host.origin ?? "") + endpoint.pattern)] = samples
            }
        }
    }
}
