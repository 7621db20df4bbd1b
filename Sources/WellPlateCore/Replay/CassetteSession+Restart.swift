/// Starting a session over without reopening it (the proxy's `POST /__cassette/sessions/ID/reset`).
extension CassetteSession {
    /// Every sequence starts again from its first recording and the counters go back to zero;
    /// the recordings, including those made in this session, stay.
    package func restart() {
        index.restartSequences()
        replayedCount.store(0, ordering: .relaxed)
        recordedCount.store(0, ordering: .relaxed)
        passthroughCount.store(0, ordering: .relaxed)
        missedCount.store(0, ordering: .relaxed)
    }
}
