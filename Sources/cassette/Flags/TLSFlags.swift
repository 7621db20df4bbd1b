import ArgumentParser
import CassetteProxy
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `--cacert`, `--cert`, `--key`, `--insecure`: how HTTPS upstreams are verified, for every
/// command that forwards requests. They override the environment's `"tls"` in cassette.json.
struct TLSFlags: ParsableArguments {
    @Option(help: ArgumentHelp("A PEM file of CA certificates trusted in addition to the system's, for an upstream behind a private or corporate CA.", valueName: "file"))
    var cacert: String?

    @Option(help: ArgumentHelp("A PEM client certificate, for an upstream that requires one (mutual TLS).", valueName: "file"))
    var cert: String?

    @Option(help: ArgumentHelp("The PEM private key of --cert, when it is not in the same file.", valueName: "file"))
    var key: String?

    @Flag(help: "Do not verify the upstream's certificate or host name. Anyone on the network path can then read and change the traffic; a warning is printed. Never a default.")
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

/// What to do about a TLS failure, in the command line's words.
enum TLSHint {
    static let insecureWarning = "--insecure: the upstream's certificate is not verified; anyone on the network path can read and change the traffic"

    static func hint(for problem: TLSProblem) -> String {
        switch problem {
        case .untrustedCertificate:
            "pass --cacert FILE with the CA certificate that signed the upstream's certificate (or \"tls\": {\"cacert\": ...} for the environment in cassette.json)"
        case .hostNameMismatch:
            "use the host name the certificate was issued for in the upstream URL (--insecure skips the check, for testing only)"
        case .clientCertificateRejected:
            "the upstream requires a client certificate it trusts: pass --cert FILE (and --key FILE when the key is separate)"
        case .clientCertificateUnusable:
            "check the files given with --cert and --key: PEM certificate and its private key"
        case .caCertificatesUnusable:
            "check the file given with --cacert: PEM certificates (-----BEGIN CERTIFICATE-----)"
        case .handshakeFailed:
            "check that the upstream speaks TLS 1.2 or newer on that port (--insecure skips certificate checks, for testing only)"
        }
    }

    /// A transport error's message with the hint, when the error is a TLS failure.
    static func message(_ error: TransportError) -> String {
        guard let problem = error.tlsProblem else { return error.message }
        return "\(error.message); \(hint(for: problem))"
    }
}
