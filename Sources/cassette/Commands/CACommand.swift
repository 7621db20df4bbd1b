import ArgumentParser
import CassetteForward
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `cassette ca`: the local certificate authority of `--forward`.
struct CACommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ca",
        abstract: "Create or locate the certificate authority that --forward intercepts HTTPS with.",
        discussion: """
            `record --forward` shows clients a certificate for each HTTPS host they call, issued on \
            the fly by a local certificate authority; clients must trust that authority's \
            certificate once (README: "Trusting cassette's certificate authority": curl, \
            SSL_CERT_FILE, Python, the iOS simulator, a macOS keychain, Android emulators). The \
            authority lives in $CASSETTE_CA_DIR, else ~/.cassette/ca: cassette-ca.pem (the \
            certificate to trust) and cassette-ca-key.pem (its key, readable by you only; it never \
            leaves the directory).

            Examples:
              cassette ca init
              cassette ca path
              curl --cacert "$(cassette ca path)" -x http://127.0.0.1:8080 \\
                https://api.example.com/v1/me
            """,
        subcommands: [Init.self, Path.self]
    )

    struct DirectoryOption: ParsableArguments {
        @Option(help: ArgumentHelp("The authority's directory (default: $CASSETTE_CA_DIR, else ~/.cassette/ca).", valueName: "dir"))
        var dir: String?

        var directory: String { dir ?? CertificateAuthority.defaultDirectory }
    }

    struct Init: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "init", abstract: "Create the certificate authority (a P-256 key and a self-signed certificate valid ten years).")

        @OptionGroup var location: DirectoryOption

        func run() async throws {
            let authority = try CertificateAuthority.create(in: location.directory)
            Terminal.printLine(
                """
                created a certificate authority in \(location.directory)
                certificate (trust this one): \(authority.certificatePath)
                key (yours only, never shared): \((location.directory as NSString).appendingPathComponent(CertificateAuthority.keyFileName))
                """)
        }
    }

    struct Path: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "path", abstract: "Print the path of the authority's certificate, the file clients trust.")

        @OptionGroup var location: DirectoryOption

        func run() async throws {
            guard CertificateAuthority.exists(in: location.directory) else {
                throw CLIError.usage("no certificate authority in \(location.directory); create one with `cassette ca init`")
            }
            Terminal.printLine(CertificateAuthority.certificatePath(in: location.directory))
        }
    }
}
