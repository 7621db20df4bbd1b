import CassetteKernel
import CassetteServing
import Crypto
import Foundation
import SwiftASN1
import X509

/// The local certificate authority of the forward proxy (`cassette ca init`, `--ca-dir`): a P-256
/// key and a self-signed CA certificate in one directory. The certificate is what users trust
/// (`cassette ca path`); the key signs the certificates the proxy shows clients for the hosts
/// it intercepts, and is readable by its owner only. It never leaves its directory: neither the
/// log nor the store ever sees it.
package struct CertificateAuthority: Sendable {
    package static let certificateFileName = "cassette-ca.pem"
    package static let keyFileName = "cassette-ca-key.pem"

    /// `$CASSETTE_CA_DIR`, else `~/.cassette/ca`.
    package static var defaultDirectory: String {
        if let directory = ProcessInfo.processInfo.environment["CASSETTE_CA_DIR"], !directory.isEmpty { return directory }
        return (NSHomeDirectory() as NSString).appendingPathComponent(".cassette/ca")
    }

    package let directory: String
    package let certificate: Certificate
    package let privateKey: P256.Signing.PrivateKey

    package var certificatePath: String { Self.certificatePath(in: directory) }

    package static func certificatePath(in directory: String) -> String {
        (directory as NSString).appendingPathComponent(certificateFileName)
    }

    package static func keyPath(in directory: String) -> String {
        (directory as NSString).appendingPathComponent(keyFileName)
    }

    /// Whether `directory` holds an authority.
    package static func exists(in directory: String) -> Bool {
        FileManager.default.fileExists(atPath: certificatePath(in: directory)) && FileManager.default.fileExists(atPath: keyPath(in: directory))
    }

    /// Loads the authority in `directory`.
    package static func load(from directory: String) throws(ProxyError) -> CertificateAuthority {
        guard exists(in: directory) else {
            throw ProxyError.usage(
                "no certificate authority in \(directory); create one with `cassette ca init --dir \(directory)` (or pass the right --ca-dir)")
        }
        let certificateText: String
        let keyText: String
        do {
            certificateText = try String(contentsOfFile: certificatePath(in: directory), encoding: .utf8)
            keyText = try String(contentsOfFile: keyPath(in: directory), encoding: .utf8)
        } catch {
            throw ProxyError.usage("cannot read the certificate authority in \(directory) (\(error.localizedDescription)); check its permissions")
        }
        do {
            let certificate = try Certificate(pemEncoded: certificateText)
            let key = try P256.Signing.PrivateKey(pemRepresentation: keyText)
            guard Certificate.PublicKey(key.publicKey) == certificate.publicKey else {
                throw ProxyError.usage(
                    "\(keyPath(in: directory)) is not the key of \(certificatePath(in: directory)); remove the directory and run `cassette ca init` again")
            }
            return CertificateAuthority(directory: directory, certificate: certificate, privateKey: key)
        } catch let error as ProxyError {
            throw error
        } catch {
            // Never the key's text: only which file failed.
            throw ProxyError.usage(
                "the certificate authority in \(directory) is not a PEM certificate and P-256 key made by `cassette ca init`; remove the directory and run it again"
            )
        }
    }

    /// Creates an authority in `directory` (made owner-only when missing); refuses to replace one.
    package static func create(in directory: String, now: Date = Date()) throws(ProxyError) -> CertificateAuthority {
        guard !exists(in: directory) else {
            throw ProxyError.usage("\(directory) already holds a certificate authority (\(certificatePath(in: directory))); use it, or remove it first")
        }
        let key = P256.Signing.PrivateKey()
        let certificate: Certificate
        let pem: String
        do {
            let name = try DistinguishedName {
                OrganizationName("cassette")
                CommonName("cassette local CA \(ProcessInfo.processInfo.hostName) \(ISO8601DateFormatter().string(from: now))")
            }
            let publicKey = Certificate.PublicKey(key.publicKey)
            let extensions = try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(digitalSignature: true, keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: publicKey)
            }
            certificate = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey, notValidBefore: now.addingTimeInterval(-3600),
                notValidAfter: now.addingTimeInterval(10 * 365 * 86400), issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: extensions, issuerPrivateKey: Certificate.PrivateKey(key))
            pem = try certificate.serializeAsPEM().pemString
        } catch {
            throw ProxyError.failure("cannot make the certificate authority: \(error)")
        }
        let manager = FileManager.default
        do {
            try manager.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            // Created owner-only: the key is never readable by anyone else, not even for a moment.
            guard manager.createFile(atPath: keyPath(in: directory), contents: Data(key.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600])
            else {
                throw ProxyError.failure("cannot write \(keyPath(in: directory)); check that \(directory) is writable")
            }
            try Data((pem + "\n").utf8).write(to: URL(fileURLWithPath: certificatePath(in: directory)))
        } catch let error as ProxyError {
            throw error
        } catch {
            throw ProxyError.failure("cannot write the certificate authority into \(directory) (\(error.localizedDescription)); check that it is writable")
        }
        return CertificateAuthority(directory: directory, certificate: certificate, privateKey: key)
    }

    /// A certificate for `host` (a name or an IP address) signed by this authority, valid for a
    /// year from an hour ago (clients on another clock still accept it), for `key`.
    package func issue(for host: String, key: P256.Signing.PrivateKey, now: Date = Date()) throws -> Certificate {
        let publicKey = Certificate.PublicKey(key.publicKey)
        let name: GeneralName
        if let address = IPAddressBytes(host) {
            name = .ipAddress(ASN1OctetString(contentBytes: ArraySlice(address.bytes)))
        } else {
            name = .dnsName(host)
        }
        let issuerKeyIdentifier = try? certificate.extensions.subjectKeyIdentifier?.keyIdentifier
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            try ExtendedKeyUsage([.serverAuth])
            SubjectAlternativeNames([name])
            SubjectKeyIdentifier(hash: publicKey)
            AuthorityKeyIdentifier(keyIdentifier: issuerKeyIdentifier ?? nil)
        }
        return try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey, notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(365 * 86400), issuer: certificate.subject, subject: try DistinguishedName { CommonName(host) },
            signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions, issuerPrivateKey: Certificate.PrivateKey(privateKey))
    }
}
