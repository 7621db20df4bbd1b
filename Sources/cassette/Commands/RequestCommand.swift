import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// Sends one request through the live client (libcurl transport, retries, error mapping), the way
/// an app would, and prints the response.
struct RequestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Send one request through the live API client and print the response.",
        discussion: """
            A path that starts with / is resolved against the base URL of the app configuration \
            (wellplate.json, or API_BASE_URL / WELLPLATE_BASE_URL), so the same command works against \
            the real backend and against a cassette proxy.

            Examples:
              cassette request http://127.0.0.1:8081/api/users
              cassette request -X POST -d '{"food":"apple","grams":150}' \\
                http://127.0.0.1:8081/api/nutrition/analyze
              API_BASE_URL=http://127.0.0.1:8080 cassette request /api/health -i
            """
    )

    @Argument(help: "An absolute http(s) URL, or a path resolved against the configured base URL.")
    var url: String

    @Option(name: [.customShort("X"), .long], help: "The request method: GET, POST, PUT, PATCH, DELETE, HEAD or OPTIONS.")
    var method: String = "GET"

    @Option(name: [.customShort("H"), .long], help: "A request header as 'Name: value'; repeat for more.")
    var header: [String] = []

    @Option(name: [.customShort("d"), .long], help: "The request body; @FILE reads it from a file.")
    var data: String?

    @Option(help: "Seconds before the request times out, up to 86400 (one day).")
    var timeout: Double = 30

    @Option(help: "Retries for idempotent requests on timeouts, connection errors, 429, 502, 503 and 504.")
    var retries: Int = 2

    @Option(help: "Seconds of the first retry's backoff, up to 86400 (one day); later retries double it.")
    var retryDelay: Double = 0.25

    @Flag(name: [.customShort("i"), .long], help: "Print the status line and response headers before the body.")
    var include = false

    @Option(help: "The app configuration file (default: wellplate.json when present).")
    var config: String?

    @OptionGroup(title: "TLS") var tls: TLSFlags

    func validate() throws {
        guard HTTPMethod(token: method) != nil else {
            throw ValidationError("'\(method)' is not a supported method; use GET, POST, PUT, PATCH, DELETE, HEAD or OPTIONS")
        }
        guard Seconds(timeout, allowsZero: false) != nil else {
            throw ValidationError.outOfRange("--timeout", timeout, Seconds.acceptedRange(allowsZero: false))
        }
        guard retries >= 0 else { throw ValidationError("--retries must be 0 or more") }
        guard Seconds(retryDelay, allowsZero: true) != nil else {
            throw ValidationError.outOfRange("--retry-delay", retryDelay, Seconds.acceptedRange(allowsZero: true))
        }
    }

    func run() async throws {
        let method = HTTPMethod(token: method)!
        let target = try resolveURL()
        let headers = try parseHeaders()
        let body = try readBody()

        var configuration = APIClient.Configuration()
        configuration.timeout = Seconds(clamping: timeout).duration
        configuration.retryPolicy = RetryPolicy(maxRetries: retries, baseDelay: Seconds(clamping: retryDelay).duration)
        var transportConfiguration = CurlTransport.Configuration()
        transportConfiguration.tls = tls.flags
        let transport: CurlTransport
        do {
            transport = try CurlTransport(configuration: transportConfiguration)
        } catch  where error.kind == .tls {
            throw CLIError.usage(TLSHint.message(error))
        } catch {
            throw CLIError("libcurl could not start: \(error)")
        }
        let client = APIClient(transport: transport, configuration: configuration)
        do {
            let response = try await client.send(url: target, method: method, headers: headers, body: body)
            if include {
                print("HTTP \(response.statusCode)")
                for field in Redactor.default.redact(headers: response.headerFields) {
                    print("\(field.name.rawName): \(field.value)")
                }
                print("")
            }
            printBody(response)
        } catch let error as APIError {
            if case .networkError(let underlying) = error {
                // Transport errors already name the method and the (redacted) URL.
                throw CLIError((underlying as? TransportError).map(TLSHint.message) ?? error.localizedDescription)
            }
            throw CLIError("\(method.rawValue) \(Redactor.default.redact(url: target)): \(error.localizedDescription)")
        }
    }

    private func resolveURL() throws -> URL {
        if url.hasPrefix("/") {
            let appConfig: AppConfig
            do {
                appConfig = try AppConfig.load(from: config)
            } catch {
                throw CLIError.usage(error.description)
            }
            guard let resolved = URL(string: url, relativeTo: appConfig.baseURL)?.absoluteURL else {
                throw CLIError.usage("'\(url)' is not a valid path")
            }
            return resolved
        }
        guard let absolute = URL(string: url), let scheme = absolute.scheme?.lowercased(),
            scheme == "http" || scheme == "https", absolute.host != nil
        else {
            throw CLIError.usage("'\(url)' is not an http(s) URL or a path starting with /")
        }
        return absolute
    }

    private func parseHeaders() throws -> [String: String] {
        var headers: [String: String] = [:]
        for line in header {
            guard let colon = line.firstIndex(of: ":") else {
                throw CLIError.usage("header '\(line)' must look like 'Name: value'")
            }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { throw CLIError.usage("header '\(line)' has no name") }
            headers[name] = value
        }
        return headers
    }

    private func readBody() throws -> Data? {
        guard let data else { return nil }
        guard data.hasPrefix("@") else { return Data(data.utf8) }
        let path = String(data.dropFirst())
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CLIError.usage("cannot read the body file \(path): \(error.localizedDescription)")
        }
    }

    private func printBody(_ response: TransportResponse) {
        guard !response.body.isEmpty else { return }
        if let value = try? JSONValue(parsing: response.body) {
            Terminal.write(Data((value.prettyJSON + "\n").utf8))
        } else {
            Terminal.write(response.body)
        }
    }
}
