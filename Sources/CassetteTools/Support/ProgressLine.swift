import Foundation
import Synchronization
import WellPlateCore
import WellPlateNetworking

/// How far a long command is, on one line of standard error that is redrawn in place (`\r`, the
/// text, erase to the end of the line) and cleared by `finish()`, so the command's own output
/// starts at the left margin as if there had been no line.
///
/// Drawn only for a person: never when standard error is not a terminal (a pipe, a file, CI
/// logs), never under `--quiet`, never with `TERM=dumb` (a terminal that takes no control
/// sequences). The line has no colour, so `NO_COLOR` leaves it as it is.
///
/// The handlers it hands out may be called from any thread, once per row: each call takes a
/// lock, reads the clock and returns, and the line is redrawn at most every `interval`.
package final class ProgressLine: Sendable {
    /// At most ten redraws a second: smooth to the eye, nothing measurable for the work.
    package static let defaultInterval = Duration.milliseconds(100)

    private struct Step {
        /// Tells a late report of an earlier step from one of this step.
        var number: Int
        var title: String
        var unit: String
        /// When the step first reported, and its count then: where its rate is measured from.
        var first: (time: Duration, done: Int)?
    }

    private struct State {
        var step: Step?
        var steps = 0
        /// When the line was last drawn; `nil` before the current step's first drawing.
        var lastDrawn: Duration?
        /// Whether something is on the line that `finish()` must clear.
        var visible = false
    }

    package let isEnabled: Bool
    private let interval: Duration
    private let now: @Sendable () -> Duration
    private let width: @Sendable () -> Int
    private let output: @Sendable (String) -> Void
    private let state = Mutex(State())

    /// A line on standard error, when it is wanted there.
    package convenience init(quiet: Bool) {
        let origin = ContinuousClock.now
        self.init(
            enabled: Self.isWanted(quiet: quiet, errorIsTerminal: isatty(STDERR_FILENO) == 1, environment: ProcessInfo.processInfo.environment),
            now: { ContinuousClock.now - origin },
            width: { Terminal.errorWidth() },
            output: { StandardStream.error.write($0) }
        )
    }

    /// A line written through `output`, timed by `now`, fitted to `width()` columns.
    package init(
        enabled: Bool, interval: Duration = defaultInterval, now: @escaping @Sendable () -> Duration, width: @escaping @Sendable () -> Int,
        output: @escaping @Sendable (String) -> Void
    ) {
        self.isEnabled = enabled
        self.interval = interval
        self.now = now
        self.width = width
        self.output = output
    }

    /// Whether a progress line belongs on standard error: a terminal, not `--quiet`, not `TERM=dumb`.
    package static func isWanted(quiet: Bool, errorIsTerminal: Bool, environment: [String: String]) -> Bool {
        !quiet && errorIsTerminal && environment["TERM"] != "dumb"
    }

    /// Starts a counted step (`auditing`, `interactions`) and returns what the work reports to;
    /// the rate and the time left are the step's own. A disabled line hands out `nil`, so the
    /// work does not even call.
    package func step(_ title: String, unit: String) -> ProgressHandler? {
        guard isEnabled else { return nil }
        let number = begin(title, unit: unit)
        return { [self] done, total in update(step: number, done: done, total: total) }
    }

    /// Shows a step that has no count (`checking OURS`, `merging`) until the next one.
    package func status(_ title: String) {
        guard isEnabled else { return }
        update(step: begin(title, unit: ""), done: 0, total: 0)
    }

    /// Clears the line. Call it before the command prints its result (or an error), and it may
    /// be called again.
    package func finish() {
        guard isEnabled else { return }
        state.withLock { state in
            state.step = nil
            if state.visible { output("\r\u{1B}[K") }
            state.visible = false
        }
    }

    private func begin(_ title: String, unit: String) -> Int {
        state.withLock { state in
            state.steps += 1
            state.step = Step(number: state.steps, title: title, unit: unit)
            state.lastDrawn = nil
            return state.steps
        }
    }

    private func update(step number: Int, done: Int, total: Int) {
        let time = now()
        state.withLock { state in
            guard let step = state.step, step.number == number else { return }
            let first = step.first ?? (time, done)
            state.step?.first = first
            if let last = state.lastDrawn, time - last < interval { return }
            state.lastDrawn = time
            let text = ProgressText(title: step.title, unit: step.unit, done: done, total: total, initial: first.done, elapsed: time - first.time)
            // Text first, then erase what is left of a longer line: no blank flicker in between.
            output("\r" + text.line(width: width()) + "\u{1B}[K")
            state.visible = true
        }
    }
}
