/// What `--forward` asks of the proxy: clients use it as their HTTP and HTTPS proxy, and it
/// records (or replays) the hosts they call, intercepting HTTPS with certificates from a local
/// authority.
package struct ForwardOptions: Sendable {
    /// Where the authority lives (`--ca-dir`, else `CertificateAuthority.defaultDirectory`).
    package var caDirectory: String
    /// `--host-filter`: when any is given, only hosts that match one are intercepted and recorded.
    package var hostFilters: [HostPattern]
    /// `--passthrough-host`: hosts never intercepted nor recorded (certificate pinning, hosts
    /// that must not be recorded).
    package var passthroughHosts: [HostPattern]

    package init(caDirectory: String, hostFilters: [HostPattern] = [], passthroughHosts: [HostPattern] = []) {
        self.caDirectory = caDirectory
        self.hostFilters = hostFilters
        self.passthroughHosts = passthroughHosts
    }

    /// Why `host` is left alone, or `nil` when it is intercepted and recorded.
    package func exclusion(of host: String) -> String? {
        if let pattern = passthroughHosts.first(where: { $0.matches(host) }) {
            return "--passthrough-host \(pattern)"
        }
        if !hostFilters.isEmpty, !hostFilters.contains(where: { $0.matches(host) }) {
            return "outside --host-filter \(hostFilters.map(\.description).joined(separator: " "))"
        }
        return nil
    }
}
