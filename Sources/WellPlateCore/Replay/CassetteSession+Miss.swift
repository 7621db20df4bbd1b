import Foundation
import HTTPTypes

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
        var varyCandidates: [[CassetteMiss.VaryCandidate]] = []
        let nearest =
            exhaustedAfter != nil
            ? []
            : RequestKey.nearest(to: key, among: candidates).map { difference -> KeyDifference in
                guard let stored = index.peek(difference.recorded.rawValue) else {
                    varyCandidates.append([])
                    return difference
                }
                // Names already in matchHeaders are in the key, and shown as header differences.
                varyCandidates.append(
                    (stored.responseHeaders[.vary] ?? "").split(separator: ",")
                        .map { $0.trimmingCharacters(in: .whitespaces) }
                        .filter { !$0.isEmpty && $0 != "*" && !matchingRules.matchedHeaders.contains($0.lowercased()) }
                        .map { name in CassetteMiss.VaryCandidate(name: name, recorded: HTTPField.Name(name).flatMap { stored.requestHeaders[$0] }) })
                guard difference.recorded.bodyFingerprint != nil else { return difference }
                var recorded = RequestKey(recording: stored, rules: matchingRules)
                // Reached by its persisted-query alias (a hash-only key the recording's document
                // answers): explained as the hash-only request it stands for, so the variables
                // that differ are named rather than "persisted vs query".
                if recorded != difference.recorded,
                    let alias = RequestKey.graphQLHashOnly(
                        method: stored.method, target: stored.url, headerFields: stored.requestHeaders, body: stored.requestBody, rules: matchingRules),
                    alias == difference.recorded
                {
                    recorded = alias
                }
                return KeyDifference(request: key, recorded: recorded)
            }
        var miss = CassetteMiss(
            method: key.method, key: key.rawValue, cassette: options.cassette, storePath: store.path, nearest: nearest, exhaustedAfter: exhaustedAfter)
        miss.varyCandidates = varyCandidates
        return miss
    }
}
