import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

/// A temporary working directory for running `cassette`, with a store filled through the library.
/// Owned by one test instance and removed with it.
package final class CLIWorkspace {
    package let directory: URL

    package init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// `cassettes.db` in the workspace: the path the tool uses when nothing else is configured.
    package var storePath: String { path("cassettes.db") }

    package func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    package func fileExists(_ name: String) -> Bool {
        FileManager.default.fileExists(atPath: path(name))
    }

    package func write(_ text: String, to name: String) throws {
        let url = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    /// Records `interactions` (and `cassettes`' metadata) into the store at `name`, then closes it.
    /// Returns them as stored, with ids and sequences.
    @discardableResult
    package func record(_ interactions: [Interaction], cassettes: [CassetteInfo] = [], into name: String = "cassettes.db") async throws -> [Interaction] {
        try await fillStore(path(name), with: interactions, cassettes: cassettes)
    }

    /// Runs the real `cassette` binary in the workspace.
    package func run(_ arguments: String..., environment: [String: String] = [:]) async throws -> CommandResult {
        try await runCassette(arguments, cwd: directory, environment: environment)
    }

    package func run(arguments: [String], environment: [String: String] = [:]) async throws -> CommandResult {
        try await runCassette(arguments, cwd: directory, environment: environment)
    }

    /// How many recordings the store holds now.
    package func count(cassette: String? = nil, in name: String = "cassettes.db") async throws -> Int {
        let store = try await CassetteStore.open(path: path(name), access: .readOnly)
        let count = try await store.count(cassette: cassette)
        try await store.close()
        return count
    }
}

/// Interactions shaped like the proxy records them: keyed with the default rules.
package enum Recordings {
    package static let recordedAt = Date(timeIntervalSince1970: 1_750_000_000)  // 2025-06-15T15:06:40Z

    package static func make(
        _ method: HTTPMethod = .get,
        _ target: String,
        cassette: String = "dev",
        status: Int = 200,
        requestHeaders: HTTPFields = [:],
        requestBody: Data? = nil,
        responseHeaders: HTTPFields = [.contentType: "application/json"],
        body: Data = Data(#"{"ok":true}"#.utf8),
        recordedAt: Date = recordedAt,
        milliseconds: Int64 = 12
    ) -> Interaction {
        let key = RequestKey(method: method, target: target, headerFields: requestHeaders, body: requestBody)
        return Interaction(
            cassette: cassette, method: method, url: "http://127.0.0.1:8081\(target)", key: key.rawValue,
            requestHeaders: requestHeaders, requestBody: requestBody, statusCode: status,
            responseHeaders: responseHeaders, responseBody: body, recordedAt: recordedAt,
            duration: .milliseconds(milliseconds)
        )
    }

    package static func json(_ text: String) -> Data {
        Data(text.utf8)
    }
}
