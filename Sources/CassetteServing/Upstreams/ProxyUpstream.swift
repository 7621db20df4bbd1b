import CassetteKernel
import Foundation
import WellPlateCore
import WellPlateNetworking

/// One upstream of a proxy that fronts several (`--upstream` given more than once, or an
/// environment's `"upstreams"`): a listener of its own forwards to it.
package struct ProxyUpstream: Sendable, Equatable {
    package var url: URL
    /// Its listener's port; `nil`: the proxy's `--port` plus the upstream's position (`0` for all
    /// when `--port 0`).
    package var port: Int?
    /// How it is verified; `nil`: the proxy's `--cacert` and friends.
    package var tls: TLSConfiguration?

    package init(url: URL, port: Int? = nil, tls: TLSConfiguration? = nil) {
        self.url = url
        self.port = port
        self.tls = tls
    }
}
