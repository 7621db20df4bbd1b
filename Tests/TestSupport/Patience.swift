/// How long a test waits for something that should happen soon (a child's first line, its exit, an
/// answer) before it gives up and fails: a guard against a hang, never a measurement. CI runs on a
/// two-core machine shared with other builds, where a process start or a request can take many
/// seconds; a guard that fires early fails a correct test, one that fires late only makes a real
/// hang slower to report. Performance targets live in Benchmarks/, not here.
package enum Patience {
    /// For a child process to start, print, answer or exit.
    package static let process = Duration.seconds(120)
    /// For one HTTP exchange with a local server or proxy.
    package static let request = Duration.seconds(60)
}
