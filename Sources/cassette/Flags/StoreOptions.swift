import ArgumentParser
import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// `--db`, `--config` and `--cassette`: the options every command that touches the store shares
/// (include with `@OptionGroup var store: StoreOptions`).
struct StoreOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The cassette store (default: \"database\" from the configuration file, else cassettes.db).", valueName: "path"))
    var db: String?

    @Option(help: ArgumentHelp("The configuration file (default: cassette.json in the working directory, when present).", valueName: "path"))
    var config: String?

    @Option(
        help: ArgumentHelp(
            "The cassette. Recording and replaying default to the --env name, else dev; list, show, delete and prune cover every cassette without it; export and schema use the only cassette, else dev.",
            valueName: "name"
        ))
    var cassette: String?

    func validate() throws {
        if db?.isEmpty == true { throw ValidationError("--db needs a path to the cassette store") }
        if config?.isEmpty == true { throw ValidationError("--config needs a path to a configuration file") }
        if cassette?.isEmpty == true { throw ValidationError("--cassette needs a cassette name") }
    }

    /// The configuration file with `--db` applied.
    func loadConfig() throws(CLIError) -> CassetteConfigFile {
        var configFile = try CassetteConfigFile.load(explicitPath: config)
        if let db { configFile.databasePath = db }
        return configFile
    }

    /// The cassette a recording or replaying command uses: `--cassette`, else the environment
    /// given with `--env`, else `dev`.
    func cassetteName(environment: String?) -> String {
        cassette ?? environment ?? CassetteConfigFile.defaultCassetteName
    }

    /// Opens the store named by the configuration file (or --db). Every store failure becomes a
    /// one-line error. For writing, a missing file is created only with `creatingIfMissing`
    /// (recording), not when deleting.
    func openStore(_ configFile: CassetteConfigFile, access: CassetteStore.Access, creatingIfMissing: Bool = false) async throws(CLIError) -> CassetteStore {
        do {
            return try await CassetteStore.open(path: configFile.databasePath, access: access, creatingIfMissing: creatingIfMissing)
        } catch {
            throw CLIError(error)
        }
    }
}
