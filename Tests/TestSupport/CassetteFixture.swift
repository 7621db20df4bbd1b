import Foundation
import HTTPTypes
import Testing
import WellPlateCore
import WellPlateNetworking

/// A store file written before a suite's tests run and removed after them, for suites whose
/// `.cassette(store:)` traits replay recordings (trait arguments are fixed when tests are
/// discovered, so the path is fixed too: one per process and fixture name).
package struct CassetteFixture: SuiteTrait, TestScoping {
    package init(path: String, interactions: @escaping @Sendable () throws -> [Interaction]) {
        self.path = path
        self.interactions = interactions
    }

    package let path: String
    package let interactions: @Sendable () throws -> [Interaction]

    package var isRecursive: Bool { false }

    package func scopeProvider(for test: Test, testCase: Test.Case?) -> CassetteFixture? {
        test.isSuite ? self : nil
    }

    package func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try await CassetteStore.open(path: path, access: .readWrite)
        try await store.record(batch: try interactions())
        try await store.close()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await function()
    }

    /// `<temporary directory>/cassette-fixture-<pid>-<name>/cassettes.db`.
    package static func path(_ name: String) -> String {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("cassette-fixture-\(ProcessInfo.processInfo.processIdentifier)-\(name)")
            .appendingPathComponent("cassettes.db").path
    }

    /// A recorded JSON answer to `method url`, keyed as a default cassette session keys it.
    package static func recording(
        cassette: String, _ method: HTTPMethod, _ url: String, status: Int = 200, json: String, requestBody: String? = nil
    ) -> Interaction {
        let body = requestBody.map { Data($0.utf8) }
        let headers: HTTPFields = body == nil ? [:] : [.contentType: "application/json"]
        let key = RequestKey(method: method, target: url, headerFields: headers, body: body)
        return Interaction(
            cassette: cassette, method: method, url: url, key: key.rawValue, requestHeaders: headers, requestBody: body,
            statusCode: status, responseHeaders: [.contentType: "application/json"], responseBody: Data(json.utf8)
        )
    }
}

extension Trait where Self == CassetteFixture {
    /// Writes `interactions` into the store at `path` before the suite runs.
    package static func cassetteFixture(_ path: String, _ interactions: @escaping @Sendable () throws -> [Interaction]) -> CassetteFixture {
        CassetteFixture(path: path, interactions: interactions)
    }
}
