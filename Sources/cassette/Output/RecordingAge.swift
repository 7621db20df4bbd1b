import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// How old recordings are and when replays last served them, for `cassette list`.
struct RecordingAge {
    let now: Date
    let usage: [Int64: RecordingUsage]

    /// Whole days since the recording was made.
    func days(_ summary: InteractionSummary) -> Int {
        max(0, Int(now.timeIntervalSince(summary.recordedAt) / 86_400))
    }

    /// `2026-01-31` (midnight UTC) or a full ISO 8601 time.
    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withFullDate]
        return formatter.date(from: text)
    }
}
