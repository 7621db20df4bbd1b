import Foundation
import HTTPTypes
import WellPlateCore

/// Keying one large request body as the proxy keys it (`ReplayKeyer.key`: the rules' redaction,
/// the learned-secret scrub of bodies up to 1 MiB, the SHA-256 body fingerprint), for
/// `Benchmarks/body-keying.sh`. The body is `application/octet-stream`, so it is hashed as it is
/// sent (no canonical form), and made of short tokens, so that a session that has learned a secret
/// hashes each of them with HMAC-SHA-256.
enum BodyKeyingBench {
    /// Keys a body of `mebibytes` MiB once to warm up, then `keys` more times, and prints the
    /// seconds per key. `keys` 0 does only the set-up and the warm-up: the baseline an instruction
    /// count subtracts. `learned`: the session has learned one secret (not in the body).
    static func run(mebibytes: Int, keys: Int, learned: Bool) {
        let secrets = LearnedSecrets()
        if learned { secrets.learn(SecretValues(["zz_learned_secret_value_0123"])) }
        let keyer = ReplayKeyer(redactor: .default, rules: .default, learned: secrets)
        let body = Self.body(bytes: mebibytes << 20)
        var last = keyer.key(method: .post, target: "/upload", contentType: "application/octet-stream", body: body)
        let seconds = Measure.seconds {
            for _ in 0..<keys {
                last = keyer.key(method: .post, target: "/upload", contentType: "application/octet-stream", body: body)
            }
        }
        Measure.printJSON([
            "mebibytes": mebibytes, "keys": keys, "learned": learned, "key": last.rawValue,
            "secondsPerKey": keys == 0 ? 0 : seconds / Double(keys),
        ])
    }

    /// `token0000001 token0000002 …` for one MiB, repeated up to `bytes`: the same bytes on every
    /// run and build, made quickly enough not to swamp what callgrind counts.
    private static func body(bytes: Int) -> Data {
        var mebibyte = Data(capacity: (1 << 20) + 16)
        var counter = 0
        while mebibyte.count < 1 << 20 {
            counter += 1
            mebibyte.append(contentsOf: Array("token\(String(counter).leftPadded(to: 7)) ".utf8))
        }
        mebibyte = mebibyte.prefix(1 << 20)
        var body = Data(capacity: bytes)
        while body.count < bytes { body.append(mebibyte.prefix(bytes - body.count)) }
        return body
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
