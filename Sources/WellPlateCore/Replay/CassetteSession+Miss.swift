import Foundation

/// Explaining a request the cassette cannot answer.
extension CassetteSession {
    /// Counts a request refused before it could be keyed (a forward proxy's CONNECT to a host the
    /// cassette has no recordings of) as a miss, for the summary and `--strict`.
    package func countMiss() {
        missedCount.add(1, ordering: .relaxed)
    }

    /// Builds the miss error with the nearest recordings; recomputes their keys from the stored
    /// requests so body differences can be named, not only noticed.
    func miss(for key: RequestKey, exhaustedAfter: Int?) -> CassetteMiss {
        let candidates = parsedKeys.withLock { cached -> [RequestKey] in
            if let cached { return cached }
            let parsed = index.keys.compactMap { RequestKey(rawValue: $0) }
            cached = parsed
            return parsed
        }
        let nearest =
            exhaustedAfter != nil
            ? []
            : RequestKey.nearest(to: key, among: candidates).map { difference -> KeyDifference in
                guard let stored = index.peek(difference.recorded.rawValue) else { return difference }
                var explained =
                    difference.recorded.bodyFingerprint == nil
                    ? difference : KeyDifference(request: key, recorded: RequestKey(recording: stored, rules: matchingRules))
                // Names already in matchHeaders are in the key, and shown as header differences.
                let unmatched = (stored.responseHeaders[.vary] ?? "").split(separator: ",")
                    .map { $0.trimmingCharacters(in: .whitespaces) }
                    .filter { !$0.isEmpty && !matchingRules.matchedHeaders.contains($0.lowercased()) }
                if !unmatched.isEmpty {
                    explained = KeyDifference(
                        request: explained.request, recorded: explained.recorded,
                        items: explained.items + [.recordingVaries(on: unmatched.joined(separator: ", "))])
                }
                return explained
            }
        return CassetteMiss(
            method: key.method, key: key.rawValue, cassette: options.cassette, storePath: store.path, nearest: nearest, exhaustedAfter: exhaustedAfter)
    }
}
