import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `FixtureFile.all(in:)`: which files of a fixtures directory are fixtures, and their names.
@Suite("fixture files of a directory")
struct FixtureFileTests {
    @Test func findsJSONFilesInSubfoldersAndSkipsTheRegistrySchemasAndHiddenFiles() async throws {
        let names = try await withFixturesDirectory([
            "mock_api_health_get.json": "{}",
            "users/list.json": "[]",
            "users/deep/detail.json": #"{"id":1}"#,
            "registry.json": #"{"version":1,"routes":[]}"#,
            "users/registry.json": "{}",
            "mock_api_health_get.schema.json": "{}",
            ".hidden.json": "{}",
            ".git/config.json": "{}",
            "notes.txt": "not a fixture",
        ]) { directory in
            try FixtureFile.all(in: directory).map(\.name)
        }
        #expect(names == ["mock_api_health_get", "users/deep/detail", "users/list", "users/registry"])
    }

    @Test func aFileThatIsNotJSONIsAnErrorWithItsLineAndColumn() async throws {
        let error = try await withFixturesDirectory(["good.json": "{}", "sub/bad.json": "{\n  \"a\": 1,\n  \"b\" 2\n}"]) { directory in
            #expect(throws: MockDataError.self) { try FixtureFile.all(in: directory) }
        }
        let failure = try #require(error)
        #expect(failure.kind == .invalidJSON)
        #expect(failure.fixture == "sub/bad")
        #expect(failure.line == 3)
        #expect(failure.column == 7)
    }
}
