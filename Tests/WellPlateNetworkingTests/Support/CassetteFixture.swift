import Foundation
import HTTPTypes
import Testing
import WellPlateNetworking

/// A store file written before a suite's tests run and removed after them, for suites whose
/// `.cassette(store:)` traits replay recordings (trait arguments are fixed when tests are
/// discovered, so the path is fixed too: one per process and fixture name).
struct CassetteFixture: SuiteTrait, TestScoping {
    let path: String
    let interactions: @Sendable () throws -> [Interaction]

    var isRecursive: Bool { false }

    func scopeProvider(for test: Test, testCase: Test.Case?) -> CassetteFixture? {
        test.isSuite ? self : nil
    }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try await CassetteStore.open(path: path, access: .readWrite)
        try await store.record(batch: try interactions())
        try await store.close()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await function()
    }

    /// `<temporary directory>/cassette-fixture-<pid>-<name>/cassettes.db`.
    static func path(_ name: String) -> String {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("cassette-fixture-\(ProcessInfo.processInfo.processIdentifier)-\(name)")
            .appendingPathComponent("cassettes.db").path
    }

    /// A recorded JSON answer to `method url`, keyed as a default cassette session keys it.
    static func recording(cassette: String, _ method: HTTPMethod, _ url: String, status: Int = 200, json: String, requestBody: String? = nil) -> Interaction {
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
    static func cassetteFixture(_ path: String, _ interactions: @escaping @Sendable () throws -> [Interaction]) -> CassetteFixture {
        CassetteFixture(path: path, interactions: interactions)
    }
}
