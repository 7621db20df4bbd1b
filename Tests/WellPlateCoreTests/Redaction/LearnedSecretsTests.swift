import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateNetworking

@testable import WellPlateCore

/// Secrets first seen in a response are scrubbed from requests by a keyed hash of their tokens:
/// where a learned value stands as a whole token it is replaced; where it is part of a longer
/// token, or is too short or not token-like to learn, it is left (and said so here).
@Suite("Secrets learned from responses")
struct LearnedSecretsTests {
    static let token = "tok_3f9a1c77e2b84d0c"
    static let base64 = "QmFzZTY0L3Rva2VuKz0/dmFsdWU="

    func learned(_ values: String...) -> LearnedSecrets {
        let learned = LearnedSecrets()
        learned.learn(SecretValues(values))
        return learned
    }

    @Test(arguments: [
        ("/users/\(token)/orders", "/users/REDACTED/orders"),
        ("/search?continue=\(token)&page=2", "/search?continue=REDACTED&page=2"),
        (#"{"carry":"\#(token)","n":1}"#, #"{"carry":"REDACTED","n":1}"#),
        ("session \(token), again: \(token).", "session REDACTED, again: REDACTED."),
        ("prefix-\(token)", "prefix-\(token)"),  // part of a longer token: not this value
        ("\(token)x", "\(token)x"),
        ("nothing here", "nothing here"),
        ("a=\(base64); b=1", "a=REDACTED; b=1"),
        (#"{"b64":"\#(base64)"}"#, #"{"b64":"REDACTED"}"#),
        ("/files?b64=\(base64.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)", "/files?b64=REDACTED"),
    ])
    func aLearnedValueIsScrubbedWhereItStandsAsAWholeToken(text: String, expected: String) {
        #expect(learned(Self.token, Self.base64).scrub(text) == expected)
    }

    /// A cookie the server set, sent back inside a query or form value (`?Set-Cookie=sid%3D...`):
    /// the escaped separators around it end the value as `=` and `;` would.
    @Test(arguments: [
        ("/response-headers?Set-Cookie=sid%3D\(token)", "/response-headers?Set-Cookie=sid%3DREDACTED"),
        ("/r?Set-Cookie=sid%3d\(token)%3B%20Path%3D%2F", "/r?Set-Cookie=sid%3dREDACTED%3B%20Path%3D%2F"),
        ("note=cookie%3A%20sid%3D\(token)&x=1", "note=cookie%3A%20sid%3DREDACTED&x=1"),
        ("/p/sid%3D\(token)/next", "/p/sid%3DREDACTED/next"),
        ("/r?c=sid%3D\(base64.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)", "/r?c=sid%3DREDACTED"),
        ("/r?c=x%41\(token)", "/r?c=x%41\(token)"),  // an escaped letter joins the token: not this value
    ])
    func aLearnedValueIsFoundAfterAnEscapedSeparator(text: String, expected: String) {
        #expect(learned(Self.token, Self.base64).scrub(text) == expected)
    }

    @Test func shortValuesAreNotLearnedAndSpacedOnesOnlyInTheirEncodedForms() {
        #expect(learned("1234567", "dark", "a b").isEmpty)
        let spaced = learned("two words here")
        #expect(spaced.scrub("/pins/1234567 two words here") == "/pins/1234567 two words here")
        #expect(spaced.scrub("/q?x=two%20words%20here&y=two+words+here") == "/q?x=REDACTED&y=REDACTED")
    }

    @Test func theStoreKeepsHashesOnlyAndAnotherInstanceRecognisesTheValue() {
        let first = LearnedSecrets()
        let stored = first.learn(SecretValues([Self.token]))
        #expect(!stored.isEmpty)
        for entry in stored {
            #expect(!String(decoding: entry.digest + entry.salt, as: UTF8.self).contains(Self.token))
        }
        let reloaded = LearnedSecrets(stored: stored)
        #expect(reloaded.scrub("/x/\(Self.token)") == "/x/REDACTED")
        // A store with another salt (merged in) is checked too.
        let other = LearnedSecrets()
        let merged = LearnedSecrets(stored: stored + other.learn(SecretValues(["zz_other_secret_value"])))
        #expect(merged.scrub("\(Self.token) zz_other_secret_value") == "REDACTED REDACTED")
    }

    /// The keyed hash is HMAC-SHA-256, so digests stored by earlier versions still match.
    @Test func hmacMatchesRFC4231() {
        // RFC 4231 test case 2; a digest keeps the code's first 16 bytes.
        let salted = LearnedSecrets.Salted(salt: Array("Jefe".utf8))
        let digest = Array("what do ya want for nothing?".utf8).withUnsafeBytes { salted.digest($0) }
        #expect(digest.bytes.map { String(format: "%02x", $0) }.joined() == "5bdcc146bf60754e6a042426089575c7")
        // Twice with the same prepared key: each token starts from the keyed state, not the last token's.
        let again = Array("what do ya want for nothing?".utf8).withUnsafeBytes { salted.digest($0) }
        #expect(again == digest)
    }

    @Test func hmacMatchesRFC4231ForAKeyLongerThanABlock() {
        // RFC 4231 test case 6: the key is hashed first.
        let salted = LearnedSecrets.Salted(salt: [UInt8](repeating: 0xaa, count: 131))
        let digest = Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8).withUnsafeBytes { salted.digest($0) }
        #expect(digest.bytes.map { String(format: "%02x", $0) }.joined() == "60e431591ee0b67f0d8a26aacbf5b77f")
    }

    /// A request that carries a value its own response names a secret (a refresh that sends the
    /// token back in an unnamed field): stored and keyed without it, and replayed for the same
    /// request; a later request carrying it is scrubbed too, also after the store is reopened.
    @Test func aValueTheResponseTeachesIsScrubbedFromItsOwnRequestAndLaterOnes() async throws {
        let directory = try TemporaryDirectory(prefix: "learned")
        let path = directory.path()
        let answer = TransportResponse(
            statusCode: 200, headerFields: [.contentType: "application/json", .setCookie: "sid=\(Self.base64); Path=/"],
            body: Data(#"{"access_token":"\#(Self.token)","user":"ada"}"#.utf8))
        let first = TransportRequest(method: .get, url: URL(string: "http://api.test/refresh?previous=\(Self.token)")!)
        let later = TransportRequest(
            method: .post, url: URL(string: "http://api.test/orders/\(Self.token)")!,
            headerFields: [.contentType: "application/json", HTTPField.Name("X-Sid")!: Self.base64],
            body: Data(#"{"sid":"\#(Self.base64)"}"#.utf8))
        try await withRecordingTransport(path: path, mode: .missing, upstream: FixedUpstream(response: answer)) { transport in
            _ = try await transport.send(first)
            _ = try await transport.send(later)
        }
        let stored = try await storedInteractions(path)
        #expect(stored.count == 2)
        for interaction in stored {
            let text =
                interaction.url + interaction.requestHeaders.map { "\($0.name): \($0.value)" }.joined()
                + String(decoding: interaction.requestBody ?? Data(), as: UTF8.self)
                + interaction.responseHeaders.map { "\($0.name): \($0.value)" }.joined() + String(decoding: interaction.responseBody, as: UTF8.self)
            #expect(!text.contains(Self.token) && !text.contains(Self.base64), "\(text)")
        }
        #expect(stored.map(\.url).sorted() == ["http://api.test/orders/REDACTED", "http://api.test/refresh?previous=REDACTED"])
        let raw = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(raw.range(of: Data(Self.token.utf8)) == nil)
        let replay = try await replayTransport(path: path)
        #expect(try await replay.send(first).statusCode == 200)
        #expect(try await replay.send(later).statusCode == 200)
    }
}
