extension RequestKey {
    /// The stored keys most like `key`, best first, each with what differs, for explaining a replay miss.
    ///
    /// Ranked by: same method, path and GraphQL operation first, then same path, then the edit distance between the
    /// paths counted in segments, then the number of differing query parameters, then host, method
    /// and body; remaining ties by key text, so the order is deterministic. Duplicate keys appear once.
    /// The ranking and the wording of differences are described in docs/matching.md.
    package static func nearest(to key: RequestKey, among candidates: [RequestKey], limit: Int = 3) -> [KeyDifference] {
        guard limit > 0, !candidates.isEmpty else { return [] }
        var unique = [String: Int]()
        var distinct = [RequestKey]()
        for candidate in candidates {
            if let position = unique[candidate.rawValue] {
                // Prefer the copy that can explain body differences.
                if distinct[position].canonicalBody == nil, candidate.canonicalBody != nil { distinct[position] = candidate }
            } else {
                unique[candidate.rawValue] = distinct.count
                distinct.append(candidate)
            }
        }
        let requestSegments = segments(key.path)
        let ranked = distinct.map { candidate -> (rank: [Int], comparison: KeyComparison, candidate: RequestKey) in
            let comparison = KeyComparison(request: key, recorded: candidate)
            // Recordings of the same GraphQL operation explain a miss first.
            let tier = comparison.samePath ? (comparison.sameMethod ? (comparison.sameOperation ? 0 : 1) : 2) : 3
            let candidateSegments = segments(candidate.path)
            let distance = comparison.samePath ? 0 : editDistance(requestSegments, candidateSegments)
            // Among equally distant paths, one of the same depth (another id) is the likelier intent.
            let depthDifference = abs(requestSegments.count - candidateSegments.count)
            let rank = [
                tier, distance, depthDifference, comparison.differingQueryParameters,
                comparison.sameOrigin ? 0 : 1, comparison.sameMethod ? 0 : 1, comparison.bodyDiffers ? 1 : 0,
            ]
            return (rank, comparison, candidate)
        }
        .sorted { lhs, rhs in
            if lhs.rank != rhs.rank { return lhs.rank.lexicographicallyPrecedes(rhs.rank) }
            return lhs.candidate.rawValue.utf8.lexicographicallyPrecedes(rhs.candidate.rawValue.utf8)
        }
        return ranked.prefix(limit).map {
            KeyDifference(request: key, recorded: $0.candidate, items: $0.comparison.items)
        }
    }

    private static func segments(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: false)
    }

    /// Levenshtein distance with whole segments as symbols: `/api/users/2` to `/api/users/3` is 1.
    private static func editDistance(_ left: [Substring], _ right: [Substring]) -> Int {
        if left.isEmpty { return right.count }
        if right.isEmpty { return left.count }
        var previous = Array(0...right.count)
        var current = [Int](repeating: 0, count: right.count + 1)
        for leftIndex in 1...left.count {
            current[0] = leftIndex
            for rightIndex in 1...right.count {
                let substitution = previous[rightIndex - 1] + (left[leftIndex - 1] == right[rightIndex - 1] ? 0 : 1)
                current[rightIndex] = min(substitution, previous[rightIndex] + 1, current[rightIndex - 1] + 1)
            }
            swap(&previous, &current)
        }
        return previous[right.count]
    }
}
