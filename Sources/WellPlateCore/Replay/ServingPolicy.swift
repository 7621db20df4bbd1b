/// How a cassette is served: its record mode and what a request without a recording gets.
/// Resolved once, from a command's flags or a session's request, and asked everywhere a serving
/// decision is made (opening the store, preparing answers, forwarding, the health endpoint).
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

    /// `record` or `replay`, as the health endpoint and messages name what the proxy does.
    package var name: String { requestedMode == .replayOnly ? "replay" : "record" }

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

    /// The step for a request whose key `isRecorded` (some recording exists) and
    /// `hasUnservedRecording` (one this session has not replayed yet); both are asked only when
    /// the mode needs them.
    package func step(isRecorded: () -> Bool, hasUnservedRecording: () -> Bool) -> Step {
        switch mode {
        case .replayOnly: .replay(orPassthrough: onMiss == .passthrough)
        case .once: isRecorded() ? .replay(orPassthrough: false) : .record
        case .missing: hasUnservedRecording() ? .replay(orPassthrough: false) : .record
        case .all: .record
        }
    }
}
