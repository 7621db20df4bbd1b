import ArgumentParser
import CassetteForward
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `--forward` and what goes with it: a forward proxy for every host the clients call.
struct ForwardFlags: ParsableArguments {
    @Flag(
        help: ArgumentHelp(
            "Be the clients' HTTP and HTTPS proxy (HTTPS_PROXY, HTTP_PROXY, curl -x, the simulator's or system's proxy setting) instead of standing in for one --upstream: every host they call is recorded (or replayed) with its origin in the key; HTTPS through CONNECT is intercepted with certificates from the local authority (see `cassette ca`)."
        ))
    var forward = false

    @Option(
        help: ArgumentHelp(
            "With --forward: the certificate authority's directory (default: $CASSETTE_CA_DIR, else ~/.cassette/ca; created when missing).",
            valueName: "dir"))
    var caDir: String?

    @Option(
        help: ArgumentHelp(
            "With --forward: intercept and record only hosts matching this glob (*.example.com); repeatable. Others are tunnelled or forwarded untouched and never recorded.",
            valueName: "pattern"))
    var hostFilter: [String] = []

    @Option(
        help: ArgumentHelp(
            "With --forward: never intercept nor record hosts matching this glob (certificate pinning, hosts that must not be recorded); repeatable.",
            valueName: "pattern"))
    var passthroughHost: [String] = []

    func validate(upstreams: UpstreamFlags) throws {
        if !forward {
            if caDir != nil || !hostFilter.isEmpty || !passthroughHost.isEmpty {
                throw ValidationError("--ca-dir, --host-filter and --passthrough-host belong to --forward; add --forward")
            }
            return
        }
        if !upstreams.upstream.isEmpty {
            throw ValidationError("--forward records every host its clients call, so it takes no --upstream; drop --upstream (or --forward)")
        }
        for pattern in hostFilter + passthroughHost where pattern.isEmpty || pattern.contains("/") || pattern.contains(":") {
            throw ValidationError(
                "'\(pattern)' is not a host pattern; give a host name glob such as api.example.com or *.example.com (no scheme, port or path)")
        }
        if caDir?.isEmpty == true { throw ValidationError("--ca-dir needs a directory") }
    }

    /// The forward options these flags ask for, or `nil` without --forward.
    var options: ForwardOptions? {
        guard forward else { return nil }
        return ForwardOptions(
            caDirectory: caDir ?? CertificateAuthority.defaultDirectory, hostFilters: hostFilter.map(HostPattern.init),
            passthroughHosts: passthroughHost.map(HostPattern.init))
    }
}
