import ArgumentParser
import CassetteTools
import Foundation

/// `--quiet` for the commands that can run long (import, redact, audit, verify, merge, codegen,
/// openapi): they show how far they are on a terminal's standard error unless told not to.
struct ProgressFlags: ParsableArguments {
    @Flag(help: "Show no progress line on standard error (it is shown only on a terminal anyway).")
    var quiet = false

    /// The progress line this run draws, or one that draws nothing.
    func line() -> ProgressLine {
        ProgressLine(quiet: quiet)
    }
}
