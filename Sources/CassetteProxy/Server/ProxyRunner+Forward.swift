import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `--forward`: the forward proxy's listener, its authority and its hosts.
extension ProxyRunner {
    /// The authority (made when missing, with a warning naming the certificate to trust) and
    /// what the forward listener and its sessions share.
    func forwardServing(_ forward: ForwardOptions, requestLog: RequestLog?) throws -> ForwardServing {
        let authority: CertificateAuthority
        if CertificateAuthority.exists(in: forward.caDirectory) {
            authority = try CertificateAuthority.load(from: forward.caDirectory)
        } else {
            authority = try CertificateAuthority.create(in: forward.caDirectory)
            Terminal.printWarning(
                "created a certificate authority in \(forward.caDirectory); clients must trust \(authority.certificatePath) to be recorded over HTTPS (README: \"Trusting cassette's certificate authority\")"
            )
        }
        let leaves: LeafCertificates
        do {
            leaves = try LeafCertificates(authority: authority)
        } catch {
            throw CLIError("cannot use the certificate authority in \(forward.caDirectory): \(error)")
        }
        return ForwardServing(options: forward, leaves: leaves, modeName: modeName, requestLog: requestLog)
    }

    /// The second line of a forward proxy: how clients use it.
    func announceForward(_ address: String, authority: CertificateAuthority) {
        let line =
            "forward proxy: set HTTPS_PROXY and HTTP_PROXY to \(address); clients must trust \(authority.certificatePath) (`cassette ca path`)"
        if outputDescriptor == STDOUT_FILENO {
            Terminal.printLine(line)
        } else {
            StandardStream.error.write(line + "\n")
        }
    }
}
