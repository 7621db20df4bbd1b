import CassetteForward
import CassetteProxy
import Foundation
import TestSupport
import Testing

/// `cassette ca init` and `ca path`: the local authority `record --forward` and `replay --forward`
/// sign their certificates with.
@Suite("cassette ca")
final class CACommandTests {
    let workspace: CLIWorkspace
    var caDirectory: String { workspace.path("ca") }
    var cassetteCA: String { CertificateAuthority.certificatePath(in: caDirectory) }

    init() throws {
        workspace = try CLIWorkspace()
    }

    @Test func caInitMakesAnOwnerOnlyKeyAndCAPathPrintsTheCertificate() async throws {
        let made = try await workspace.run("ca", "init", "--dir", caDirectory)
        #expect(made.status == 0, "\(made)")
        #expect(made.stdout.contains(cassetteCA), "\(made)")
        let keyPath = (caDirectory as NSString).appendingPathComponent(CertificateAuthority.keyFileName)
        let attributes = try FileManager.default.attributesOfItem(atPath: keyPath)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let directory = try FileManager.default.attributesOfItem(atPath: caDirectory)
        #expect((directory[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        #expect(!made.stdout.contains("PRIVATE KEY"))
        let path = try await workspace.run("ca", "path", "--dir", caDirectory)
        #expect(path.stdout == cassetteCA + "\n", "\(path)")
        // openssl agrees it is a CA certificate.
        let text = try await ExternalTool.run("openssl", ["x509", "-in", cassetteCA, "-noout", "-text"], cwd: workspace.directory)
        #expect(text.stdout.contains("CA:TRUE"), "\(text)")
        let again = try await workspace.run("ca", "init", "--dir", caDirectory)
        #expect(again.status == 2 && again.stderr.contains("already holds a certificate authority"), "\(again)")
        let missing = try await workspace.run("ca", "path", "--dir", workspace.path("nowhere"))
        #expect(missing.status == 2 && missing.stderr.contains("cassette ca init"), "\(missing)")
    }
}
