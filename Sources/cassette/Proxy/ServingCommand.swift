import ArgumentParser
import CassetteProxy
import Logging

/// `record`, `replay` and `run`: commands whose proxy `ServingOptions` builds. Each can be started
/// inside another process, as the tests start them, from its flags alone.
protocol ServingCommand: ParsableCommand {
    /// The proxy the command's flags describe, reporting through `logger`, with its request lines
    /// written to `requestLogDescriptor`; nothing is opened or started.
    func makeRunner(logger: Logger, requestLogDescriptor: Int32) throws -> ProxyRunner
}
