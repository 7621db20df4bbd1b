/// HMAC-SHA-256 (RFC 2104) over our `SHA256`, for remembering secrets by a keyed hash
/// (`LearnedSecrets`). The pads are hashed once per key, so each message costs only its own
/// blocks and the outer block. Not constant-time: nobody can time it from outside, it runs on
/// values the proxy already holds in clear.
package struct HMACSHA256: Sendable {
    private let inner: SHA256
    private let outer: SHA256

    package init(key: [UInt8]) {
        var block = key.count > 64 ? SHA256.digest(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        var inner = SHA256()
        inner.update(block.map { $0 ^ 0x36 })
        var outer = SHA256()
        outer.update(block.map { $0 ^ 0x5c })
        self.inner = inner
        self.outer = outer
    }

    package func authenticationCode(_ message: UnsafeRawBufferPointer) -> [UInt8] {
        var inner = self.inner
        inner.update(message)
        var outer = self.outer
        outer.update(inner.finalize())
        return outer.finalize()
    }

    package func authenticationCode(_ message: [UInt8]) -> [UInt8] {
        message.withUnsafeBytes { authenticationCode($0) }
    }
}
