/// Command-line options of `sample-api`.
struct ServerOptions: Sendable, Equatable {
    var host = "127.0.0.1"
    /// 0 asks the system for a free port; the bound port is printed on the first stdout line.
    var port = 8081
    var verbose = false
    /// Serve users in a changed shape (no `email`, `id` a string) to demonstrate drift checks.
    var drifted = false

    enum Command: Equatable {
        case serve(ServerOptions)
        case help
    }

    static let usage = """
        USAGE: sample-api [--host ADDR] [--port N] [--verbose] [--drifted]

        Serves the WellPlate sample API over HTTP/1.1. The first line on stdout is
        "listening on http://HOST:PORT"; SIGINT or SIGTERM stops it after in-flight requests.

        OPTIONS:
          --host ADDR   Address to bind (default 127.0.0.1).
          --port N      Port to bind, 0 for any free port (default 8081).
          --verbose     Log one line per request to stderr.
          --drifted     Serve users drifted from the usual shape: no "email", "id" a
                        string (for `cassette verify` demonstrations and tests).
          -h, --help    Show this help.

        """

    /// Parses the arguments after the program name. Accepts `--flag value` and `--flag=value`.
    static func parse(_ arguments: [String]) throws(OptionsError) -> Command {
        var options = ServerOptions()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            let (flag, inlineValue) = split(argument)
            func value() throws(OptionsError) -> String {
                if let inlineValue { return inlineValue }
                guard let next = remaining.popFirst() else {
                    throw OptionsError("\(flag) needs a value")
                }
                return next
            }
            switch flag {
            case "--host":
                let host = try value()
                guard !host.isEmpty else { throw OptionsError("--host needs a non-empty address") }
                options.host = host
            case "--port":
                let raw = try value()
                guard let port = Int(raw), (0...65_535).contains(port) else {
                    throw OptionsError("--port must be an integer from 0 to 65535, got '\(raw)'")
                }
                options.port = port
            case "--verbose":
                guard inlineValue == nil else { throw OptionsError("--verbose takes no value") }
                options.verbose = true
            case "--drifted":
                guard inlineValue == nil else { throw OptionsError("--drifted takes no value") }
                options.drifted = true
            case "-h", "--help":
                return .help
            case _ where flag.hasPrefix("-"):
                throw OptionsError("unknown option '\(argument)'")
            default:
                throw OptionsError("unexpected argument '\(argument)'")
            }
        }
        return .serve(options)
    }

    private static func split(_ argument: String) -> (flag: String, value: String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }
}

/// A command line `sample-api` cannot run with.
struct OptionsError: Error, Equatable, CustomStringConvertible {
    let message: String

    init(_ message: String) {
        self.message = message
    }

    var description: String {
        "sample-api: \(message); run 'sample-api --help' for usage"
    }
}
