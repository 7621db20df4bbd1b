import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import WellPlateCore
import WellPlateNetworking

/// `--max-sessions` and `--session-idle-timeout`: the limits on sessions (`POST
/// /__cassette/sessions`), shared by `record`, `replay` and `run`.
struct SessionFlags: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "How many sessions (POST /__cassette/sessions: a cassette, a mode and a port of their own per test) may be open at once; 0 allows none.",
            valueName: "n"))
    var maxSessions: Int = 64

    @Option(
        help: ArgumentHelp(
            "Close a session that served no request for this long: seconds, or a number with ms, s, m or h (from 100ms to 24h).", valueName: "duration"))
    var sessionIdleTimeout: IdleTimeoutOption = IdleTimeoutOption(argument: "10m")!

    @Flag(
        help: ArgumentHelp(
            "Serve sessions only: the main port answers X-Cassette-Session requests and /__cassette endpoints, and its own cassette need not exist."))
    var sessionsOnly = false

    func validate() throws {
        guard (0...10_000).contains(maxSessions) else {
            throw ValidationError.outOfRange("--max-sessions", maxSessions, "a whole number from 0 to 10000")
        }
        if sessionsOnly && maxSessions == 0 {
            throw ValidationError("--sessions-only with --max-sessions 0 would serve nothing; drop one of them")
        }
        guard sessionIdleTimeout.duration != nil else {
            throw ValidationError("--session-idle-timeout \(sessionIdleTimeout.argument) is not a duration from 100ms to 24h; \(IdleTimeoutOption.accepted)")
        }
    }

    func apply(to settings: inout ProxySettings) {
        settings.maxSessions = maxSessions
        settings.sessionIdleTimeout = sessionIdleTimeout.duration ?? .seconds(600)
        settings.sessionsOnly = sessionsOnly
    }
}

/// A duration such as `90`, `90s`, `500ms`, `10m` or `1h`.
struct IdleTimeoutOption: ExpressibleByArgument {
    /// `nil` for a value that is not a duration or is out of range, which `validate()` reports
    /// with what is accepted (a failing `init?(argument:)` could only say "invalid").
    let duration: Duration?
    let argument: String

    static let accepted = "use seconds or a number with ms, s, m or h, such as 30s or 10m"

    init?(argument: String) {
        self.argument = argument
        let text = argument.lowercased()
        let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        let unit = units.first { text.hasSuffix($0.suffix) && Double(text.dropLast($0.suffix.count)) != nil }
        guard let number = Double(unit.map { String(text.dropLast($0.suffix.count)) } ?? text), number.isFinite else {
            duration = nil
            return
        }
        let seconds = number * (unit?.seconds ?? 1)
        duration = (0.1...86_400).contains(seconds) ? .milliseconds(Int64((seconds * 1000).rounded())) : nil
    }

    /// The value as it is typed: `--help` prints the default this way.
    var defaultValueDescription: String { argument }
}
