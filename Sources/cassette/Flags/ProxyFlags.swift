import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// Options every command that starts the proxy shares.
struct ProxyFlags: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The address to listen on (default: \"host\" from the configuration file, else 127.0.0.1). Anything but loopback exposes recordings to the network.",
            valueName: "address"))
    var host: String?

    @Option(help: ArgumentHelp("The port to listen on; 0 picks a free one (default: \"port\" from the configuration file, else 8080).", valueName: "n"))
    var port: Int?

    @Option(help: ArgumentHelp("The largest request or response body accepted, in bytes; larger requests get 413.", valueName: "bytes"))
    var maxBodySize: Int = 64 * 1024 * 1024

    @Option(
        help: ArgumentHelp(
            "When recording: normal keeps every answered exchange through a crash or kill of the proxy; full also through a power loss, at one disk sync per commit (default: \"durability\" from the configuration file, else normal).",
            valueName: "normal|full"))
    var durability: DurabilityOption?

    @Flag(help: "Do not print a line per request.")
    var quiet = false

    @Flag(
        name: .customLong("no-rewrite-urls"),
        help: ArgumentHelp(
            "Serve Location, Content-Location, Link and Refresh URLs that point at the upstream as the upstream sent them, instead of pointing at the proxy (default: \"rewriteURLs\" from the configuration file, else rewritten)."
        ))
    var noRewriteURLs = false

    @Flag(
        name: .customLong("rewrite-body-urls"),
        help: ArgumentHelp(
            "Also point absolute upstream URLs inside JSON response bodies at the proxy. Served bodies then differ from the recordings (no longer byte-exact; Content-Length follows the rewritten body); the store keeps what the upstream sent (default: \"rewriteBodyURLs\" from the configuration file, else off)."
        ))
    var rewriteBodyURLs = false

    @Option(
        name: .customLong("ws-timing"),
        help: ArgumentHelp(
            "How a replayed WebSocket conversation paces the server's messages: recorded (the recorded delays), fast (at once), or a factor such as 0.5 (half the recorded delays).",
            valueName: "recorded|fast|factor"))
    var webSocketTiming = "recorded"

    @Option(
        name: .customLong("ws-max-message"),
        help: ArgumentHelp("The largest WebSocket message accepted, in bytes; a larger one closes the connection with 1009.", valueName: "bytes"))
    var webSocketMaxMessage = 16 * 1024 * 1024

    @Option(
        name: .customLong("protoset"),
        help: ArgumentHelp(
            "A FileDescriptorSet (`protoc --include_imports --descriptor_set_out=FILE`) whose descriptors decode gRPC messages as JSON and match them by field; repeat for several. Kept in the store, so replay and the tools need it only once (default: \"grpc.protosets\" from the configuration file).",
            valueName: "file"))
    var protosets: [String] = []

    @Option(
        name: .customLong("grpc-max-message"),
        help: ArgumentHelp("The largest gRPC message accepted, in bytes; a larger one ends its call with RESOURCE_EXHAUSTED.", valueName: "bytes"))
    var grpcMaxMessage = 4 * 1024 * 1024

    @Option(
        name: .customLong("grpc-timing"),
        help: ArgumentHelp(
            "How a replayed gRPC call paces the server's messages and its end: recorded (the recorded delays), fast (at once), or a factor such as 0.5 (half the recorded delays).",
            valueName: "recorded|fast|factor"))
    var grpcTiming = "recorded"

    @Option(
        name: .customLong("graphql-path"),
        help: ArgumentHelp(
            "A path where requests carrying a GraphQL operation are keyed by operation and variables; repeat for several (default: \"graphql.paths\" from the configuration file, else /graphql).",
            valueName: "path"))
    var graphQLPaths: [String] = []

    /// The matching rules to open the cassette with: the configuration file's when it sets any,
    /// and with `--graphql-path` the file's (or the default) rules with those GraphQL paths; `nil`
    /// keeps the rules the cassette was recorded with.
    func matchingRules(from configFile: CassetteConfigFile) throws -> MatchingRules? {
        guard !graphQLPaths.isEmpty else { return configFile.explicitMatchingRules }
        var rules = configFile.matchingRules
        rules.graphQLPaths = Set(try CassetteConfigFile.graphQLPaths(graphQLPaths, source: "--graphql-path"))
        return rules
    }

    func validate() throws {
        for path in graphQLPaths where !path.hasPrefix("/") || path.contains("?") {
            throw ValidationError("--graphql-path needs a path such as /graphql (no host, no query), got \"\(path)\"")
        }
        for (flag, text) in [("--ws-timing", webSocketTiming), ("--grpc-timing", grpcTiming)] where ReplayTiming.scale(parsing: text) == nil {
            throw ValidationError.outOfRange(flag, text, ReplayTiming.accepted)
        }
        if grpcMaxMessage <= 0 {
            throw ValidationError("--grpc-max-message must be a positive number of bytes, got \(grpcMaxMessage)")
        }
        for path in protosets where !FileManager.default.fileExists(atPath: path) {
            throw ValidationError("--protoset \(path): no such file; write one with `protoc --include_imports --descriptor_set_out=FILE`")
        }
        if webSocketMaxMessage <= 0 {
            throw ValidationError("--ws-max-message must be a positive number of bytes, got \(webSocketMaxMessage)")
        }
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
        settings.rewritesUpstreamURLs = !noRewriteURLs && configFile.rewritesURLs
        settings.rewritesBodyURLs = rewriteBodyURLs || configFile.rewritesBodyURLs
        settings.durability = durability?.durability ?? configFile.durability
        settings.webSocket.timingScale = ReplayTiming.scale(parsing: webSocketTiming) ?? 1
        settings.webSocket.maxMessageSize = webSocketMaxMessage
        settings.grpc.maxMessage = grpcMaxMessage
        settings.grpc.timingScale = ReplayTiming.scale(parsing: grpcTiming) ?? 1
        settings.grpc.protosets = protosets.isEmpty ? configFile.protosets : protosets
        settings.messageSecretShapes = MessageSecretShapes(SecretAudit.shapedSecrets(in:))
        return settings
    }
}
