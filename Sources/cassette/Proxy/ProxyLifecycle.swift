import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore

/// The proxy's life on the command line: started with its `listening on` lines printed (and
/// flushed at once, since a parent process waits for them), stopped with its summary printed.
/// `run` prints both on stderr, since its child owns stdout.
struct ProxyLifecycle {
    let runner: ProxyRunner
    var toStandardError = false

    func start() async throws(CLIError) -> ProxyRunner.Running {
        let running: ProxyRunner.Running
        do {
            running = try await runner.start()
        } catch {
            throw CLIError(error)
        }
        write(running.announcement)
        return running
    }

    func stop(_ running: ProxyRunner.Running) async -> CassetteSession.Counters {
        let stopped = await runner.stop(running)
        write(stopped.summary)
        return stopped.counters
    }

    /// Serves until SIGINT or SIGTERM, then stops gracefully; `strict` turns misses into status 1.
    func serveUntilSignalled(strict: Bool = false) async throws {
        let signals = SignalWaiter()
        let running = try await start()
        _ = await signals.next()
        let counters = await stop(running)
        if strict && counters.missed > 0 {
            throw CLIError("--strict: \(counters.missed) request(s) had no recording", exitStatus: 1)
        }
    }

    private func write(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        let text = lines.joined(separator: "\n") + "\n"
        if toStandardError {
            StandardStream.error.write(text)
        } else {
            Terminal.write(Data(text.utf8))
        }
    }
}
