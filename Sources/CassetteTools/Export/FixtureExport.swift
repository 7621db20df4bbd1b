import Foundation
import WellPlateCore
import WellPlateNetworking

/// What `cassette export` does to a fixtures directory: decided first for every file by comparing
/// with what is on disk, then carried out. Every file is written atomically, fixtures before
/// `registry.json`, and the registry only gains routes whose fixture file was written or already
/// held the same JSON, so it never points at a file that is missing or stale.
package struct FixtureExport {
    package enum Action: Equatable {
        case create
        /// The file holds the same JSON (byte for byte, or with other formatting, which is kept).
        case unchanged
        case overwrite
        /// The file differs and `--force` was not given.
        case refuse
    }

    package struct FileStep {
        package var fixture: HarvestedFixture
        package var action: Action
        package var url: URL
    }

    package enum RegistryAction: Equatable {
        case create, update, unchanged
        /// No routes and no file: nothing to write.
        case none
    }

    package let directory: URL
    package let steps: [FileStep]
    package let skipped: [SkippedEndpoint]
    /// The registry to write: the existing routes plus those of the accepted fixtures.
    package let registry: MockResponseRegistry
    package let registryAction: RegistryAction
    package let existingRouteCount: Int

    package var registryURL: URL { directory.appendingPathComponent(MockResponseRegistry.fileName) }

    /// Compares the harvest with `directory` (which may not exist yet).
    package init(harvest: FixtureHarvest, existing: MockResponseRegistry, directory: URL, force: Bool) throws(CLIError) {
        self.directory = directory
        skipped = harvest.skipped
        var steps: [FileStep] = []
        let registry = MockResponseRegistry(registrations: existing.registrations)
        for fixture in harvest.fixtures {
            let url = directory.appendingPathComponent(fixture.fileName)
            let action: Action
            switch try Self.read(url) {
            case nil:
                action = .create
            case let current? where current == fixture.contents || (try? JSONValue(parsing: current)) == fixture.value:
                action = .unchanged
            case _?:
                action = force ? .overwrite : .refuse
            }
            steps.append(FileStep(fixture: fixture, action: action, url: url))
        }
        // A hash-only recording (`persisted GetUser`) and one with the document (`query GetUser`)
        // make routes of the same operation name: the one with the document, registered last, wins.
        for step in steps.sorted(by: { Self.isPersisted($0.fixture) && !Self.isPersisted($1.fixture) }) where step.action != .refuse {
            for route in step.fixture.routes { registry.register(route) }
        }
        self.steps = steps
        self.registry = registry
        existingRouteCount = existing.registrations.count
        let registryURL = directory.appendingPathComponent(MockResponseRegistry.fileName)
        switch try Self.read(registryURL) {
        case nil:
            registryAction = registry.registrations.isEmpty ? .none : .create
        case _?:
            // A hand-formatted file with the same routes is left as it is.
            registryAction = registry.registrations == existing.registrations ? .unchanged : .update
        }
    }

    package var refusedCount: Int { steps.count(where: { $0.action == .refuse }) }

    /// Writes what the plan says: fixtures first, `registry.json` last.
    package func apply() throws(CLIError) {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw CLIError("cannot create the fixtures directory \(directory.path) (\(error.localizedDescription)); check that its parent is writable")
        }
        for step in steps where step.action == .create || step.action == .overwrite {
            do {
                // Fixture names may reach into subfolders (`users/list`).
                try FileManager.default.createDirectory(at: step.url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try step.fixture.contents.write(to: step.url, options: .atomic)
            } catch {
                throw CLIError("cannot write \(step.url.path) (\(error.localizedDescription)); check that \(directory.path) is writable")
            }
        }
        if registryAction == .create || registryAction == .update {
            do {
                try registry.save(to: registryURL)
            } catch {
                throw CLIError(error.description)
            }
        }
    }

    private static func isPersisted(_ fixture: HarvestedFixture) -> Bool {
        fixture.endpoints.contains { $0.operation?.hasPrefix("persisted ") == true }
    }

    /// The file's bytes, or `nil` when there is no file.
    private static func read(_ url: URL) throws(CLIError) -> Data? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return nil }
        guard !isDirectory.boolValue else {
            throw CLIError("\(url.path) is a directory, so the fixture cannot be written there; move it away or rename the fixture in registry.json")
        }
        do {
            return try Data(contentsOf: url)
        } catch {
            throw CLIError("cannot read \(url.path) (\(error.localizedDescription)); check its permissions")
        }
    }
}
