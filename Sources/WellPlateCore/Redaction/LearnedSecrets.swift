import Crypto
import Foundation
import Synchronization

/// Secrets first seen in a response (a cookie the server sets, a token in a JSON field the rules
/// name), remembered so that the same value is scrubbed from later requests too: from the URL,
/// the headers, the body, the key and the log line.
///
/// Only a keyed hash of each value is kept, in memory and in the store (`learned_secrets`), never
/// the value: a replaying proxy, which never saw the response that taught it, recognises the value
/// in a request by hashing the request's tokens (`scrub`). So recording and replay replace the same
/// tokens and a request keys the same on both. Each store keeps its own random salt (the HMAC key);
/// stores merged from elsewhere may bring more, and every token is checked under each.
///
/// A value is learned when it looks like a token: at least `minimumLength` bytes of letters,
/// digits and `-._~%+/=`, which covers session ids, bearer tokens, JWTs and base64. It is found
/// again wherever it stands as a whole token (`LearnedSecrets+Tokens`).
package final class LearnedSecrets: Sendable {
    /// Shorter values are too likely to be ordinary words or ids to scrub by token.
    package static let minimumLength = 8

    /// One salt's keyed hashes. Digests are truncated to 16 bytes: enough to never collide by
    /// chance, and half the memory.
    package struct Salted: Sendable {
        package let salt: [UInt8]
        /// Keyed with the salt once: each token then costs a copy of its hashers, its own blocks
        /// and the outer block.
        let hmac: HMAC<SHA256>
        var digests: Set<Digest>

        init(salt: [UInt8], digests: Set<Digest> = []) {
            self.salt = salt
            hmac = HMAC(key: SymmetricKey(data: salt))
            self.digests = digests
        }

        func digest(_ token: UnsafeRawBufferPointer) -> Digest {
            var code = hmac
            code.update(data: token)
            return Digest(code.finalize())
        }
    }

    package struct Digest: Hashable, Sendable {
        let high: UInt64
        let low: UInt64

        package init(_ digest: some ContiguousBytes) {
            (high, low) = digest.withUnsafeBytes { bytes in
                precondition(bytes.count >= 16, "a digest is at least 16 bytes")
                var high: UInt64 = 0
                var low: UInt64 = 0
                for index in 0..<8 {
                    high = high << 8 | UInt64(bytes[index])
                    low = low << 8 | UInt64(bytes[index + 8])
                }
                return (high, low)
            }
        }

        /// The 16 bytes as stored.
        package var bytes: [UInt8] {
            (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64($0))) }
                + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64($0))) }
        }
    }

    /// A digest as the store keeps it, with the salt it was made under.
    package struct StoredDigest: Hashable, Sendable {
        package var salt: [UInt8]
        package var digest: [UInt8]

        package init(salt: [UInt8], digest: [UInt8]) {
            self.salt = salt
            self.digest = digest
        }
    }

    private struct State: Sendable {
        /// The salt new values are learned under comes first.
        var salted: [Salted]
    }

    private let state: Mutex<State>
    /// Keyed hashes of the credential cookie values responses set while this process recorded,
    /// short ones included; in memory only (`noteSetByResponse`).
    private let setByResponses = Mutex<Set<Digest>>([])
    /// Read on every request before taking the lock: nearly every store has learned nothing.
    private let learnedAny: Atomic<Bool>

    /// Secrets with the digests `stored` holds; new values are learned under the first of their
    /// salts, or under a new random salt when there is none.
    package init(stored: some Sequence<StoredDigest> = []) {
        var bySalt: [[UInt8]: Set<Digest>] = [:]
        var order: [[UInt8]] = []
        for entry in stored where entry.digest.count >= 16 {
            if bySalt[entry.salt] == nil { order.append(entry.salt) }
            bySalt[entry.salt, default: []].insert(Digest(entry.digest))
        }
        var salted = order.map { Salted(salt: $0, digests: bySalt[$0] ?? []) }
        if salted.isEmpty { salted = [Salted(salt: Self.randomSalt())] }
        learnedAny = Atomic(salted.contains { !$0.digests.isEmpty })
        state = Mutex(State(salted: salted))
    }

    /// Nothing learned: every scrub returns its input.
    package var isEmpty: Bool { !learnedAny.load(ordering: .acquiring) }

    /// Learns every form of `secrets` that looks like a token; returns what is new, to store.
    @discardableResult
    package func learn(_ secrets: SecretValues) -> [StoredDigest] {
        let tokens = secrets.forms.filter(Self.isLearnable)
        guard !tokens.isEmpty else { return [] }
        let added = state.withLock { state -> [StoredDigest] in
            var added: [StoredDigest] = []
            for token in tokens {
                let digest = Array(token.utf8).withUnsafeBytes { state.salted[0].digest($0) }
                guard state.salted[0].digests.insert(digest).inserted else { continue }
                added.append(StoredDigest(salt: state.salted[0].salt, digest: digest.bytes))
            }
            return added
        }
        if !added.isEmpty { learnedAny.store(true, ordering: .releasing) }
        return added
    }

    /// Remembers cookie values a recorded response set and the store keeps redacted: a client
    /// carries them because of that response, and a replaying client carries the placeholder
    /// instead, so a short one is not followed into the rest of a request (see
    /// `Redactor.collectHeaderSecrets`). Only this process's recordings matter: a later run replays
    /// that response, redacted, before the client can carry the value.
    package func noteSetByResponse(_ values: [String]) {
        guard !values.isEmpty else { return }
        let digests = state.withLock { state in values.map { value in Array(value.utf8).withUnsafeBytes { state.salted[0].digest($0) } } }
        setByResponses.withLock { $0.formUnion(digests) }
    }

    /// Whether a recorded response set the cookie value `value` (`noteSetByResponse`).
    package func wasSetByResponse(_ value: String) -> Bool {
        guard !setByResponses.withLock(\.isEmpty) else { return false }
        let digest = state.withLock { state in Array(value.utf8).withUnsafeBytes { state.salted[0].digest($0) } }
        return setByResponses.withLock { $0.contains(digest) }
    }

    /// Whether `token` is a learned value.
    package func contains(_ token: UnsafeRawBufferPointer) -> Bool {
        state.withLock { state in state.salted.contains { !$0.digests.isEmpty && $0.digests.contains($0.digest(token)) } }
    }

    /// A snapshot of the salts and digests, for scrubbing many tokens under one lock.
    var salted: [Salted] {
        state.withLock { $0.salted.filter { !$0.digests.isEmpty } }
    }

    static func isLearnable(_ form: String) -> Bool {
        form.utf8.count >= minimumLength && form.utf8.allSatisfy(TokenBytes.isWide)
    }

    private static func randomSalt() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
