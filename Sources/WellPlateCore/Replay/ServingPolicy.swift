/// How a cassette is served: its record mode and what a request without a recording gets.
/// Resolved once, from a command's flags or a session's request, carried whole in
/// `CassetteSession.Options`, and asked everywhere a serving decision is made (opening the store,
/// preparing answers, forwarding, whole and streamed requests, WebSocket handshakes, the health
/// endpoint): nothing else looks at the mode.
package struct ServingPolicy: Sendable, Hashable {
    /// What a replay does with a request it has no recording for (`--on-miss`).
    package enum OnMiss: String, Sendable, Hashable, CaseIterable {
        /// Answer with an error status and an explanation.
        case error
        /// Forward upstream without recording.
        case passthrough
        /// Forward upstream and record.
        case record
    }

    /// The mode as asked for (`record --mode`, `replay`'s `none`, a session's `mode`).
    package let requestedMode: RecordMode
    package let onMiss: OnMiss

    package init(mode: RecordMode, onMiss: OnMiss = .error) {
        requestedMode = mode
        self.onMiss = onMiss
    }

    /// Replays, and a miss is an error: what a cassette that is only looked at is served with.
    package static let replayOnly = ServingPolicy(mode: .replayOnly)

    /// The mode the cassette session runs in: a replay that records its misses is `missing`.
    package var mode: RecordMode {
        requestedMode == .replayOnly && onMiss == .record ? .missing : requestedMode
    }

    /// Whether anything may be written to the store, which is then opened for writing.
    package var records: Bool { mode != .replayOnly }

    /// Whether a request may reach the upstream, which must then be known.
    package var forwards: Bool { mode != .replayOnly || onMiss == .passthrough }

    /// Never contacts the upstream: every answer is a recording or a miss, and can be made from
    /// bytes prepared when the cassette opens.
    package var isReplayOnly: Bool { !forwards }

    /// Asked to replay (`cassette replay`, `run --mode replay`, a session's mode `none`), whatever
    /// `onMiss` makes of the misses: the health endpoint says `replay`, the summary lists what was
    /// never replayed, and a proxy that cannot record still opens such sessions.
    package var asksToReplay: Bool { requestedMode == .replayOnly }

    /// `record` or `replay`, as the health endpoint and messages name what the proxy does.
    package var name: String { asksToReplay ? "replay" : "record" }

    /// Whether a request with a recording can be answered from it: in every mode but `all`, which
    /// forwards and records every request. A WebSocket handshake is held to its recorded
    /// conversation's subprotocol only then.
    package var replaysRecordings: Bool { mode != .all }

    /// Whether a key's first recording in a session replaces what the cassette had for it (`all`:
    /// the cassette is recorded afresh, and later repeats in the session append).
    package var replacesRecordings: Bool { mode == .all }

    /// The same policy for a session that asks for `requested` (the proxy's own mode when `nil`):
    /// the proxy's `--on-miss` applies to its sessions too.
    package func session(mode requested: RecordMode?) -> ServingPolicy {
        ServingPolicy(mode: requested ?? requestedMode, onMiss: onMiss)
    }

    /// What one request gets, the one decision for whole and streamed answers alike.
    package enum Step: Sendable, Equatable {
        /// Answer from the cassette; `orPassthrough`: forward without recording if it has no answer.
        case replay(orPassthrough: Bool)
        /// Forward and record.
        case record
    }

    /// The step for a request with `key`, given what `recordings` hold for it: the session's index
    /// for a request, whole or streamed, and its conversations for a WebSocket handshake. Each is
    /// asked only what the mode needs.
    package func step(for key: String, in recordings: some RecordingLookup) -> Step {
        switch mode {
        case .replayOnly: .replay(orPassthrough: onMiss == .passthrough)
        case .once: recordings.isRecorded(key) ? .replay(orPassthrough: false) : .record
        case .missing: recordings.hasUnservedRecording(key) ? .replay(orPassthrough: false) : .record
        case .all: .record
        }
    }
}

/// What `ServingPolicy.step` asks of a cassette's recordings: its requests' (`ReplayIndex`) or
/// its WebSocket conversations' (`RecordedConversations`), as they stand in this session.
package protocol RecordingLookup {
    /// Whether `key` has any recording.
    func isRecorded(_ key: String) -> Bool
    /// Whether `key` has a recording this session has not served yet.
    func hasUnservedRecording(_ key: String) -> Bool
}
