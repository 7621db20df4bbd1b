import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `--cacert`, `--cert`, `--key`, `--insecure`: how HTTPS upstreams are verified, for every
/// command that forwards requests. They override the environment's `"tls"` in cassette.json.
struct TLSFlags: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "A PEM file of CA certificates trusted in addition to the system's, for an upstream behind a private or corporate CA.", valueName: "file"))
    var cacert: String?

    @Option(help: ArgumentHelp("A PEM client certificate, for an upstream that requires one (mutual TLS).", valueName: "file"))
    var cert: String?

    @Option(help: ArgumentHelp("The PEM private key of --cert, when it is not in the same file.", valueName: "file"))
    var key: String?

    @Flag(
        help:
            "Do not verify the upstream's certificate or host name. Anyone on the network path can then read and change the traffic; a warning is printed. Never a default."
    )
    var insecure = false

    func validate() throws {
        if key != nil && cert == nil {
            throw ValidationError("--key needs --cert (the client certificate it belongs to)")
        }
    }

    /// The environment's settings from the configuration file, with the flags on top.
    func configuration(configFile: CassetteConfigFile, environment: String?) -> TLSConfiguration {
        let fromFile = environment.flatMap { configFile.environmentTLS[$0] } ?? TLSConfiguration()
        return fromFile.overriding(flags)
    }

    /// The flags alone; relative paths are taken from the working directory.
    var flags: TLSConfiguration {
        TLSConfiguration(
            additionalCACertificatesPath: cacert.map(Self.absolute),
            clientCertificatePath: cert.map(Self.absolute),
            clientKeyPath: key.map(Self.absolute),
            insecure: insecure
        )
    }

    private static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(path)
    }
}
