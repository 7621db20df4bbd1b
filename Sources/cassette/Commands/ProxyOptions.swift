import ArgumentParser
import Foundation
import WellPlateNetworking

/// Options every command that starts the proxy shares.
struct ProxyOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The address to listen on (default: \"host\" from the configuration file, else 127.0.0.1). Anything but loopback exposes recordings to the network.", valueName: "address"))
    var host: String?

    @Option(help: ArgumentHelp("The port to listen on; 0 picks a free one (default: \"port\" from the configuration file, else 8080).", valueName: "n"))
    var port: Int?

    @Option(help: ArgumentHelp("The largest request or response body accepted, in bytes; larger requests get 413.", valueName: "bytes"))
    var maxBodySize: Int = 64 * 1024 * 1024

    @Flag(help: "Do not print a line per request.")
    var quiet = false

    func validate() throws {
        if let port, !(0...65535).contains(port) {
            throw ValidationError("--port must be between 0 and 65535, got \(port)")
        }
        if maxBodySize <= 0 {
            throw ValidationError("--max-body-size must be a positive number of bytes")
        }
        if host?.isEmpty == true {
            throw ValidationError("--host needs an address such as 127.0.0.1")
        }
    }

    func configuration(settings: ProxyConfig) -> ProxyConfiguration {
        var configuration = ProxyConfiguration()
        configuration.host = host ?? settings.host
        configuration.port = port ?? settings.port
        configuration.maxBodySize = maxBodySize
        configuration.logRequests = !quiet
        return configuration
    }
}

/// `--env NAME` or `--upstream URL`: where forwarded requests go.
struct UpstreamOptions: ParsableArguments {
    @Option(help: ArgumentHelp("An environment from the configuration file whose upstream to use; also the default cassette name.", valueName: "name"))
    var env: String?

    @Option(help: ArgumentHelp("The upstream base URL, without a configuration file (http://host:port[/base/path]).", valueName: "url"))
    var upstream: String?

    func validate() throws {
        if env != nil && upstream != nil {
            throw ValidationError("pass either --env or --upstream, not both")
        }
        if let upstream {
            _ = try Self.parseURL(upstream)
        }
    }

    /// The upstream named on the command line, if any.
    func resolve(settings: ProxyConfig) throws -> URL? {
        if let upstream { return try Self.parseURL(upstream) }
        if let env { return try settings.upstream(forEnvironment: env) }
        return nil
    }

    static func parseURL(_ text: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host?.isEmpty == false else {
            throw ValidationError("--upstream '\(text)' is not an http(s) URL such as http://127.0.0.1:8081")
        }
        return url
    }
}

/// Record modes as the command line spells them.
enum RecordModeOption: String, ExpressibleByArgument, CaseIterable {
    case once, missing, all

    var mode: RecordMode {
        switch self {
        case .once: .once
        case .missing: .missing
        case .all: .all
        }
    }
}

enum MissPolicyOption: String, ExpressibleByArgument, CaseIterable {
    case error, passthrough, record

    var policy: ProxyConfiguration.MissPolicy {
        switch self {
        case .error: .error
        case .passthrough: .passthrough
        case .record: .record
        }
    }
}

enum SequenceOption: String, ExpressibleByArgument, CaseIterable {
    case repeatLast = "repeat-last", cycle, fail

    var policy: SequencePolicy {
        switch self {
        case .repeatLast: .repeatLast
        case .cycle: .cycle
        case .fail: .fail
        }
    }
}

/// `none`, `recorded`, or a number of milliseconds.
struct LatencyOption: ExpressibleByArgument {
    /// `nil` for a number out of range, which `ReplayOptions.validate()` reports with the accepted
    /// range (a failing `init?(argument:)` could only say "invalid").
    let latency: ProxyConfiguration.Latency?
    let argument: String

    init?(argument: String) {
        self.argument = argument
        switch argument.lowercased() {
        case "none": latency = ProxyConfiguration.Latency.none
        case "recorded": latency = .recorded
        default:
            guard let milliseconds = Double(argument) else { return nil }
            guard milliseconds == milliseconds.rounded(), let fixed = Seconds(milliseconds: milliseconds, allowsZero: true) else {
                latency = nil
                return
            }
            latency = fixed.value == 0 ? ProxyConfiguration.Latency.none : .fixed(fixed.duration)
        }
    }

    static var defaultCompletionKind: CompletionKind { .list(["none", "recorded", "100"]) }
}

/// Replay behaviour shared by `replay` and `run`.
struct ReplayOptions: ParsableArguments {
    @Flag(help: "Exit with status 1 when any request found no recording.")
    var strict = false

    @Option(help: ArgumentHelp("What a request without a recording gets: error (a \(404) explaining the nearest recordings), passthrough (forwarded, not recorded) or record (forwarded and recorded).", valueName: "policy"))
    var onMiss: MissPolicyOption = .error

    @Option(help: ArgumentHelp("Delay before replayed responses: none, recorded (each interaction's recorded duration) or a number of milliseconds up to 86400000 (one day).", valueName: "latency"))
    var latency: LatencyOption = LatencyOption(argument: "none")!

    @Option(help: ArgumentHelp("The status of a miss response.", valueName: "code"))
    var missStatus: Int = 404

    @Option(help: ArgumentHelp("After every recording of a request was replayed: repeat-last, cycle or fail.", valueName: "policy"))
    var sequence: SequenceOption = .repeatLast

    func validate() throws {
        guard latency.latency != nil else {
            throw ValidationError.outOfRange("--latency", latency.argument, "a whole number of milliseconds from 0 to 86400000 (one day), none or recorded")
        }
        guard (400...599).contains(missStatus) else {
            throw ValidationError("--miss-status must be a 4xx or 5xx status, got \(missStatus)")
        }
    }

    func apply(to configuration: inout ProxyConfiguration) {
        configuration.missPolicy = onMiss.policy
        configuration.latency = latency.latency ?? ProxyConfiguration.Latency.none
        configuration.missStatus = missStatus
    }
}
