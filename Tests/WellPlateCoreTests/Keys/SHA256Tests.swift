import Crypto
import Foundation
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// The SHA-256 the core keys bodies with is swift-crypto's: its known answers, checked through the
/// calls the core makes, because a stored key's body fingerprint must never change.
@Suite("SHA-256")
struct SHA256Tests {
    /// FIPS 180-4 / NIST CAVP vectors, and lengths around the padding boundaries (checked with sha256sum).
    @Test(
        "digest matches known vectors",
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
            (String(repeating: "x", count: 55), "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072"),
            (String(repeating: "x", count: 56), "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e"),
            (String(repeating: "x", count: 63), "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2"),
            (String(repeating: "x", count: 64), "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c"),
            (String(repeating: "x", count: 65), "9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9"),
            (String(repeating: "x", count: 119), "000b48d4edf0fa7bee3c6236ecd2785baa5db4eeb8bb54341b029e0d9fa5fb0c"),
            (String(repeating: "x", count: 120), "13f05a0b594787f5ecd315edc96141bd3243203d1b7d4f0836f37308b276ba98"),
        ])
    func knownVectors(input: String, expected: String) throws {
        #expect(SHA256.hash(data: Array(input.utf8)).hex == expected)
        // A body that is not canonicalized is keyed by the first 16 digits of the same digest.
        guard !input.isEmpty else { return }
        let raw = try #require(BodyFingerprint.make(body: Data(input.utf8), contentType: "application/octet-stream"))
        #expect(raw.fingerprint.hex == String(expected.prefix(BodyFingerprint.hexLength)))
    }

    @Test func oneMillionLetterAMatchesTheNISTVector() {
        let input = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SHA256.hash(data: input).hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func oneMebibyteOfZerosMatchesSha256sum() throws {
        let input = Data(count: 1 << 20)
        #expect(SHA256.hash(data: input).hex == "30e14955ebf1352266dc2ff8067e68104607e750abb9d3b36582b8af909fcb58")
        let raw = try #require(BodyFingerprint.make(body: input, contentType: "application/octet-stream"))
        #expect(raw.fingerprint.hex == "30e14955ebf13522")
    }

    @Test(arguments: [1, 7, 63, 64, 65, 1000])
    func feedingInPiecesGivesTheOneShotDigest(pieceSize: Int) {
        let input = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var hasher = SHA256()
        var offset = 0
        while offset < input.count {
            let end = min(offset + pieceSize, input.count)
            hasher.update(data: input[offset..<end])
            offset = end
        }
        #expect(hasher.finalize() == SHA256.hash(data: input))
    }

    @Test func hexPrefixKeepsTheRequestedNumberOfDigits() {
        let digest = SHA256.hash(data: Array("abc".utf8))
        #expect(digest.hexPrefix(16) == "ba7816bf8f01cfea")
        #expect(digest.hexPrefix(3) == "ba7")
        #expect(digest.hexPrefix(0) == "")
        #expect(digest.hexPrefix(100) == digest.hex)
        #expect(digest.hex.count == 64)
    }
}
