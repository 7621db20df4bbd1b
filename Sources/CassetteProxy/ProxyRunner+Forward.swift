import CassetteForward
import CassetteServing
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `--forward`: the forward proxy's authority and what its listener and sessions share.
extension ProxyRunner {
    /// The authority (made when missing, with a warning naming the certificate to trust) and
    /// what the forward listener and its sessions share.
    func forwardServing(_ forward: ForwardOptions) throws(ProxyError) -> ForwardServing {
        let authority: CertificateAuthority
        if CertificateAuthority.exists(in: forward.caDirectory) {
            authority = try CertificateAuthority.load(from: forward.caDirectory)
        } else {
            authority = try CertificateAuthority.create(in: forward.caDirectory)
            logger.warning(
                "created a certificate authority in \(forward.caDirectory); clients must trust \(authority.certificatePath) to be recorded over HTTPS (README: \"Trusting cassette's certificate authority\")"
            )
        }
        let leaves: LeafCertificates
        do {
            leaves = try LeafCertificates(authority: authority)
        } catch {
            throw .failure("cannot use the certificate authority in \(forward.caDirectory): \(error)")
        }
        return ForwardServing(options: forward, leaves: leaves)
    }
}
