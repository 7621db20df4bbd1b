import Crypto

extension SHA256Digest {
    /// The first `length` lower-case hex digits: how request keys, GraphQL operation names and
    /// variant file names spell a digest, in as few digits as each needs.
    package func hexPrefix(_ length: Int) -> String {
        let count = Swift.min(Swift.max(length, 0), Self.byteCount * 2)
        return withUnsafeBytes { digest in
            String(unsafeUninitializedCapacity: count) { text in
                for position in 0..<count {
                    let byte = digest[position / 2]
                    text[position] = Self.hexDigits[Int(position % 2 == 0 ? byte >> 4 : byte & 0x0f)]
                }
                return count
            }
        }
    }

    /// All 64 lower-case hex digits, as `sha256sum` prints them.
    package var hex: String { hexPrefix(Self.byteCount * 2) }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
