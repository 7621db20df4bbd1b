import Foundation
import HTTPTypes

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
    /// For each of `nearest`: the request headers its recorded response varies on (`Vary`) that
    /// the key leaves out, with the recorded request's (redacted) values. Advice about them is
    /// given only once the request is known to differ there (`explained(by:redactor:)`).
    package var varyCandidates: [[VaryCandidate]] = []

    package struct VaryCandidate: Sendable, Equatable {
        package var name: String
        package var recorded: String?

        package init(name: String, recorded: String?) {
            self.name = name
            self.recorded = recorded
        }
    }

    /// A miss from its parts; all of them should already be redacted.
    public init(method: HTTPMethod, key: String, cassette: String, storePath: String, nearest: [KeyDifference], exhaustedAfter: Int? = nil) {
        self.method = method
        self.key = key
        self.cassette = cassette
        self.storePath = storePath
        self.nearest = nearest
        self.exhaustedAfter = exhaustedAfter
    }

    /// The miss with the `Vary` advice where the request's own headers (redacted like the
    /// recording's) differ from the recorded request's in a header its response varies on; a
    /// header with the same value is no cause and gets no advice.
    package func explained(by requestHeaders: HTTPFields, redactor: Redactor) -> CassetteMiss {
        guard varyCandidates.contains(where: { !$0.isEmpty }) else { return self }
        let redacted = redactor.redact(headers: requestHeaders)
        let nearest = self.nearest.enumerated().map { index, difference -> KeyDifference in
            let candidates = index < varyCandidates.count ? varyCandidates[index] : []
            let differing = candidates.filter { candidate in
                let value: String? = HTTPField.Name(candidate.name).flatMap { redacted[$0] }
                return value != candidate.recorded
            }
            guard !differing.isEmpty else { return difference }
            return KeyDifference(
                request: difference.request, recorded: difference.recorded,
                items: difference.items + [.recordingVaries(on: differing.map(\.name).joined(separator: ", "))])
        }
        var explained = CassetteMiss(
            method: method, key: key, cassette: cassette, storePath: storePath, nearest: nearest, exhaustedAfter: exhaustedAfter)
        explained.varyCandidates = []
        return explained
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
