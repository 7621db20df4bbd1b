import ArgumentParser
import Foundation
import WellPlateNetworking

/// Options every command that starts the proxy shares.
struct ProxyFlags: ParsableArguments {
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

    /// The server settings these flags ask for, on top of the configuration file's.
    func settings(from configFile: CassetteConfigFile) -> ProxySettings {
        var settings = ProxySettings()
        settings.host = host ?? configFile.host
        settings.port = port ?? configFile.port
        settings.maxBodySize = maxBodySize
        settings.logRequests = !quiet
        return settings
    }
}

/// `--env NAME` or `--upstream URL`: where forwarded requests go.
struct UpstreamFlags: ParsableArguments {
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
    func resolve(_ configFile: CassetteConfigFile) throws -> URL? {
        if let upstream { return try Self.parseURL(upstream) }
        if let env { return try configFile.upstream(forEnvironment: env) }
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

    var policy: ProxySettings.MissPolicy {
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
    let latency: ProxySettings.Latency

    init?(argument: String) {
        switch argument.lowercased() {
        case "none", "0": latency = .none
        case "recorded": latency = .recorded
        default:
            guard let milliseconds = Int(argument), milliseconds > 0 else { return nil }
            latency = .fixed(.milliseconds(milliseconds))
        }
    }

    static var defaultCompletionKind: CompletionKind { .list(["none", "recorded", "100"]) }
}

/// Replay behaviour shared by `replay` and `run`.
struct ReplayFlags: ParsableArguments {
    @Flag(help: "Exit with status 1 when any request found no recording.")
    var strict = false

    @Option(help: ArgumentHelp("What a request without a recording gets: error (a \(404) explaining the nearest recordings), passthrough (forwarded, not recorded) or record (forwarded and recorded).", valueName: "policy"))
    var onMiss: MissPolicyOption = .error

    @Option(help: ArgumentHelp("Delay before replayed responses: none, recorded (each interaction's recorded duration) or a number of milliseconds.", valueName: "latency"))
    var latency: LatencyOption = LatencyOption(argument: "none")!

    @Option(help: ArgumentHelp("The status of a miss response.", valueName: "code"))
    var missStatus: Int = 404

    @Option(help: ArgumentHelp("After every recording of a request was replayed: repeat-last, cycle or fail.", valueName: "policy"))
    var sequence: SequenceOption = .repeatLast

    func validate() throws {
        guard (400...599).contains(missStatus) else {
            throw ValidationError("--miss-status must be a 4xx or 5xx status, got \(missStatus)")
        }
    }

    func apply(to settings: inout ProxySettings) {
        settings.missPolicy = onMiss.policy
        settings.latency = latency.latency
        settings.missStatus = missStatus
    }
}
