import Foundation

/// A request with no recording to answer it. Says what was asked, where it looked, and which
/// recordings came nearest with what differs; everything in it is already redacted.
public struct CassetteMiss: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// The request's method.
    public let method: HTTPMethod
    /// The normalized key the request produced.
    public let key: String
    /// The cassette that was searched.
    public let cassette: String
    /// The path of the store file holding the cassette.
    public let storePath: String
    /// The most similar recorded keys, best first, each with what differs; empty when the key was
    /// recorded but exhausted (`exhaustedAfter`).
    public let nearest: [KeyDifference]
    /// Set when the key was recorded but every recording was already served (`SequencePolicy.fail`).
    public let exhaustedAfter: Int?

    /// A miss from its parts; all of them should already be redacted.
    public init(method: HTTPMethod, key: String, cassette: String, storePath: String, nearest: [KeyDifference], exhaustedAfter: Int? = nil) {
        self.method = method
        self.key = key
        self.cassette = cassette
        self.storePath = storePath
        self.nearest = nearest
        self.exhaustedAfter = exhaustedAfter
    }

    /// What was asked, where it looked and what came nearest, without advice: a tool that
    /// knows its own commands adds them (the `cassette` proxy names its flags).
    public var summary: String { summary(recordingsInCassette: nil) }

    /// `summary`, saying so when the cassette holds no recordings at all (`recordings == 0`)
    /// rather than that none is similar.
    package func summary(recordingsInCassette recordings: Int?) -> String {
        var text: String
        if let exhaustedAfter {
            text = "All \(exhaustedAfter) recording(s) of \(key) in cassette \"\(cassette)\" (\(storePath)) were already replayed"
        } else {
            text = "No recording of \(key) in cassette \"\(cassette)\" (\(storePath))"
        }
        if recordings == 0 {
            text += "; the cassette has no recordings at all"
        } else if nearest.isEmpty {
            text += "; the cassette has no similar request"
        } else {
            text += "; nearest: " + nearest.map { "\($0.recorded.rawValue) (\($0.items.map(\.description).joined(separator: ", ")))" }.joined(separator: "; ")
        }
        return text
    }

    /// `summary`, followed by how to record the request or let misses through.
    public var description: String {
        summary + ". Record it (record mode `missing`), or let misses through to the upstream."
    }

    /// The same text as `description`.
    public var errorDescription: String? { description }
}
