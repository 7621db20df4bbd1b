/// The `sample-api` process: options, binding, the "listening on" line, and exit codes.
enum SampleAPIProgram {
    /// Exit code for a command line that cannot be run (unknown flag, bad value).
    static let usageExitCode: Int32 = 2

    static func run(arguments: [String]) async -> Int32 {
        let options: ServerOptions
        do {
            switch try ServerOptions.parse(arguments) {
            case .help:
                StandardStreams.writeLine(ServerOptions.usage)
                return 0
            case .serve(let parsed):
                options = parsed
            }
        } catch {
            StandardStreams.error(error.description)
            return usageExitCode
        }

        let signals = ShutdownSignals()
        let server: SampleAPIServer
        do {
            server = try await SampleAPIServer.bind(
                host: options.host,
                port: options.port,
                router: SampleAPIRoutes.makeRouter(drifted: options.drifted),
                log: RequestLog(isEnabled: options.verbose)
            )
        } catch {
            StandardStreams.error(error.description)
            return 1
        }
        signals.attach(server)
        // The only line ever written to stdout: parents read it to learn the port.
        StandardStreams.writeLine("listening on \(server.url)")

        do {
            try await server.run()
            return 0
        } catch {
            StandardStreams.error("sample-api: stopped serving: \(error)")
            return 1
        }
    }
}
