import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `cassette`: record real API traffic once, replay it offline, harvest fixtures, diff schemas.
struct Cassette: AsyncParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "cassette",
        abstract: "Record API traffic once, replay it offline, harvest fixtures and catch schema drift.",
        discussion: """
            Typical loop (examples fit an 80-column terminal):
              cassette record --upstream URL      # point the app at the proxy
              cassette replay                     # CI: no backend needed
              cassette run --strict -- swift test # replay around one command
              cassette list                       # what was recorded
              cassette show 'GET /api/users'      # one recording in full
              cassette export --fixtures Fixtures # fixtures + registry.json
              cassette diff --fixtures Fixtures   # fixtures vs. what the API sends
              cassette schema --out Schemas       # JSON Schema per endpoint
              cassette codegen swift --out Models # Codable types per endpoint
              cassette openapi --out api.yaml     # OpenAPI 3.1 of the recordings
              cassette verify --env staging       # drift against the live API
              cassette import session.har         # from DevTools or mitmproxy
              cassette dump                       # the store as reviewable text
              cassette audit                      # secrets redaction missed?
              cassette redact                     # apply today's rules to the store


            """ + CassetteConfigFile.fileFormatHelp,
        version: version,
        subcommands: [
            RecordCommand.self, ReplayCommand.self, RunCommand.self,
            ListCommand.self, ShowCommand.self, DeleteCommand.self, PruneCommand.self,
            ExportCommand.self, ImportCommand.self, DumpCommand.self, MergeCommand.self,
            DiffCommand.self, SchemaCommand.self,
            CodegenCommand.self, OpenAPICommand.self, VerifyCommand.self,
            RequestCommand.self, ConfigCommand.self, CACommand.self,
            AuditCommand.self, RedactCommand.self, UICommand.self, ReportCommand.self,
        ]
    )
}

/// Runs the command line and maps every failure to a one-line message and an exit status:
/// 1 for runtime failures, 2 for usage and input errors, a command's own status otherwise.
@main
enum CassetteMain {
    static func main() async {
        StandardStream.ignoreBrokenPipes()
        if let refusal = ArgumentBytes.refusal() {
            Terminal.printError(refusal)
            exit(2)
        }
        do {
            var command = try Cassette.parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as CLIError {
            Terminal.printError(error.message)
            exit(error.exitStatus)
        } catch let error as ProxyError {
            let error = CLIError(error)
            Terminal.printError(error.message)
            exit(error.exitStatus)
        } catch let code as ExitCode where code != .validationFailure {
            // A command's own status (a wrapped child's, or `diff` finding drift): nothing to print.
            exit(code.rawValue)
        } catch {
            let code = Cassette.exitCode(for: error)
            if code == .success || error is CleanExit {
                Cassette.exit(withError: error)
            }
            if code == .validationFailure {
                // Usage errors keep ArgumentParser's message and usage text, with status 2.
                let message = Cassette.fullMessage(for: error)
                StandardStream.error.write(message + "\n")
                exit(2)
            }
            if code != .failure {
                exit(code.rawValue)
            }
            Terminal.printError((error as? LocalizedError)?.errorDescription ?? String(describing: error))
            exit(1)
        }
    }
}
