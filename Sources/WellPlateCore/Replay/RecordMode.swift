/// When a request is forwarded and recorded, and when it is answered from the cassette. One policy
/// shared by in-process recording (`RecordingTransport`) and the `cassette` proxy.
public enum RecordMode: String, Sendable, Hashable, CaseIterable, Codable {
    /// Record a key only if the cassette has no recording of it, else replay. Repeats of a recorded
    /// key replay by the sequence rules; the cassette never grows for a known key.
    case once
    /// Replay hits, record misses, keep going. A repeat beyond the recorded sequence is a miss, so
    /// the sequence grows: this is the mode that records a session with repeated calls faithfully.
    case missing
    /// Always forward and record; the first recording of a key in a session replaces what the
    /// cassette had for it, later repeats append.
    case all
    /// Replay only; a miss is an error. Spelled `none` on the command line, in cassette.json and
    /// in `CASSETTE_MODE`; in Swift it has a name of its own, because `.none` where a
    /// `RecordMode?` is expected would be read as "no mode given" (`Optional.none`).
    case replayOnly = "none"

    /// Whether a request without a recording may be sent upstream: every mode but `replayOnly`.
    public var forwardsMisses: Bool { self != .replayOnly }
}

/// What a replay does once every recording of a key has been served.
public enum SequencePolicy: String, Sendable, Hashable, CaseIterable, Codable {
    /// Keep serving the last recording (the default: polling endpoints keep working).
    case repeatLast = "repeat-last"
    /// Start again from the first recording.
    case cycle
    /// Treat further requests as misses.
    case fail
}
