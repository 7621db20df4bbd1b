import Foundation
import Synchronization

/// `--max-age`: replies from recordings older than this carry a warning, or are refused like a
/// miss (`--stale fail`). Decided per recording when the proxy starts, so requests pay nothing
/// for it; without `--max-age` there is no policy at all.
package final class StalePolicy: Sendable {
    package let maxAgeDays: Int
    /// Refuse stale recordings (a miss-like answer that `--strict` counts) instead of warning.
    package let fails: Bool
    package let cutoff: Date
    private let now: Date
    private let served = Atomic(0)

    package init(maxAgeDays: Int, fails: Bool, now: Date = Date()) {
        self.maxAgeDays = maxAgeDays
        self.fails = fails
        self.now = now
        cutoff = now.addingTimeInterval(-Double(maxAgeDays) * 86_400)
    }

    package func isStale(_ interaction: Interaction) -> Bool {
        interaction.recordedAt < cutoff
    }

    /// `recorded 2025-06-15T15:06:40Z, 526 days ago; --max-age 90`
    package func notice(for interaction: Interaction) -> String {
        let days = Int(now.timeIntervalSince(interaction.recordedAt) / 86_400)
        return "recorded \(Formatting.timestamp(interaction.recordedAt)), \(Formatting.count(days, "day")) ago; --max-age \(maxAgeDays)"
    }

    /// The line printed for one request answered from (or refused for) a stale recording; counts it.
    package func report(method: String, target: String, notice: String) -> String {
        served.add(1, ordering: .relaxed)
        return fails
            ? "warning: \(method) \(target) refused: its recording is stale (\(notice))"
            : "warning: \(method) \(target) served from a stale recording (\(notice))"
    }

    /// Requests answered from, or refused for, stale recordings so far.
    package var count: Int {
        served.load(ordering: .relaxed)
    }

    /// The body of a refusal, shaped like a miss's.
    package func refusal(for interaction: Interaction) -> JSONValue {
        [
            "error": "cassette_stale",
            "message": .string("\(interaction.key) has only a stale recording (\(notice(for: interaction))); record it again"),
            "key": .string(interaction.key),
            "cassette": .string(interaction.cassette),
            "recordedAt": .string(Formatting.timestamp(interaction.recordedAt)),
        ]
    }
}
