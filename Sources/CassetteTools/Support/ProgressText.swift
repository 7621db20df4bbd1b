import Foundation
import WellPlateCore
import WellPlateNetworking

/// The text of a progress line: `auditing  4200/10000 interactions  42%  1234/s  5s left`.
///
/// The count is padded to the width of the total, so the line does not jitter while it is
/// redrawn; the rate and the time left appear once some time has passed and something is done.
/// They are measured from the step's first report, not from its start: work that comes before
/// the first row (a count, a read of every row) would otherwise make the rate too low throughout.
/// A line never reaches the terminal's last column (it would wrap, and `\r` would then redraw only
/// its last row): what does not fit is left out, time left first, then the rate, the percentage,
/// and finally the end of the text.
package struct ProgressText: Sendable, Equatable {
    /// What is being done: `auditing`.
    package var title: String
    /// What is counted, plural: `interactions`; empty for a step with no count.
    package var unit: String
    package var done: Int
    /// 0 when not known: the line then shows the count without a total.
    package var total: Int
    /// The count at the step's first report, from which the rate is measured.
    package var initial: Int
    /// Since the step's first report.
    package var elapsed: Duration

    /// Below this, a rate is mostly noise and the time left a guess.
    static let settlingTime = Duration.milliseconds(500)

    package init(title: String, unit: String, done: Int, total: Int, initial: Int = 0, elapsed: Duration) {
        self.title = title
        self.unit = unit
        self.done = done
        self.total = total
        self.initial = initial
        self.elapsed = elapsed
    }

    /// The line, at most `width - 1` characters.
    package func line(width: Int) -> String {
        var parts = [title]
        let hasCount = !unit.isEmpty
        if hasCount { parts.append(count) }
        var optional: [String] = []
        if hasCount, let percent { optional.append(percent) }
        if hasCount, let rate = perSecond {
            optional.append(Self.rate(rate))
            if let left = secondsLeft(rate: rate) { optional.append(Self.timeLeft(left)) }
        }
        let limit = max(width - 1, 1)
        while !optional.isEmpty && Self.join(parts + optional).count > limit {
            optional.removeLast()
        }
        let text = Self.join(parts + optional)
        return text.count > limit ? String(text.prefix(limit)) : text
    }

    private static func join(_ parts: [String]) -> String {
        parts.joined(separator: "  ")
    }

    /// `4200/10000 interactions`, the count right-aligned under the total's width.
    private var count: String {
        guard total > 0 else { return "\(done) \(unit)" }
        let shown = String(min(done, total))
        let padding = String(repeating: " ", count: max(String(total).count - shown.count, 0))
        return "\(padding)\(shown)/\(total) \(unit)"
    }

    /// Whole percent, rounded down: `100%` only when everything is done.
    private var percent: String? {
        guard total > 0 else { return nil }
        let value = min(done, total) * 100 / total
        return (value < 10 ? "  " : value < 100 ? " " : "") + "\(value)%"
    }

    private var perSecond: Double? {
        guard done > initial, elapsed >= Self.settlingTime else { return nil }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Double(done - initial) / seconds
    }

    private func secondsLeft(rate: Double) -> Int? {
        guard total > 0, done < total, rate > 0 else { return nil }
        let left = (Double(total - done) / rate).rounded(.up)
        return left < Double(Int.max) ? Int(left) : nil
    }

    /// `1234/s`, `12/s`, `3.5/s`: one decimal only where it says something.
    package static func rate(_ value: Double) -> String {
        if value >= 9.95 { return "\(Int(value.rounded()))/s" }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)/s"
    }

    /// `5s left`, `2m05s left`, `3h07m left`.
    package static func timeLeft(_ seconds: Int) -> String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        if seconds < 60 { return "\(seconds)s left" }
        if seconds < 3600 { return "\(seconds / 60)m\(two(seconds % 60))s left" }
        return "\(seconds / 3600)h\(two(seconds % 3600 / 60))m left"
    }
}
