import NIOHTTP1

/// The request header names that change how a replayed request is keyed or logged: secret ones
/// (their values are scrubbed from the target) and keyed ones (conditional headers,
/// `matchHeaders`). Nearly every request carries none, and `ProxyHandler` then keys it by method
/// and target alone; this answers that in one pass over the request's headers, comparing ASCII
/// bytes without building a lowercased copy of each name.
struct KeyingHeaderNames: Sendable {
    /// Lowercased, as bytes.
    private let names: [[UInt8]]

    init(_ names: some Sequence<String>) {
        self.names = Set(names.map { $0.lowercased() }).map { Array($0.utf8) }
    }

    /// Whether any header of `headers` may be one of these names. A name that is not ASCII counts
    /// as one, so the caller's exact rules (Unicode lowercasing) decide it.
    func anyOccurs(in headers: HTTPHeaders) -> Bool {
        for header in headers where matches(header.name) {
            return true
        }
        return false
    }

    private func matches(_ name: String) -> Bool {
        let count = name.utf8.count
        return names.contains { candidate in
            candidate.count == count && zip(candidate, name.utf8).allSatisfy { expected, byte in
                byte >= 0x80 || expected == (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte)
            }
        } || name.utf8.contains { $0 >= 0x80 }
    }
}
