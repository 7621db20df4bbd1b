import Foundation
import TestSupport
import Testing

@testable import CassetteTesting
@testable import WellPlateCore
@testable import WellPlateNetworking

@Suite("Cassette settings: name, store and mode")
struct CassetteSettingsTests {
    @Test func theNameIsTheSuiteAndFunctionPlusTheCaseArguments() {
        #expect(CassetteSettings.cassetteName(nameComponents: ["UserTests", "loadsProfile()"], arguments: nil) == "UserTests/loadsProfile()")
        #expect(CassetteSettings.cassetteName(nameComponents: ["Outer", "Inner", "loads(id:)"], arguments: ["7"]) == "Outer/Inner/loads(id:)[7]")
        #expect(CassetteSettings.cassetteName(nameComponents: ["T", "pair(a:b:)"], arguments: ["1", "\"x\""]) == "T/pair(a:b:)[1, \"x\"]")
    }

    @Test func theDefaultStoreIsNamedAfterTheTestTargetInTestsCassettes() {
        let file = "/repo/Tests/AppTests/Networking/UserTests.swift"
        #expect(CassetteSettings.storePath(trait: nil, environment: [:], testFile: file) == "/repo/Tests/__Cassettes__/AppTests.db")
        // Without a Tests/ folder above it, the store sits beside the file.
        #expect(CassetteSettings.storePath(trait: nil, environment: [:], testFile: "/src/UserTests.swift") == "/src/__Cassettes__/cassettes.db")
    }

    @Test func theTraitsStoreWinsOverTheEnvironmentWhichWinsOverTheDefault() {
        let file = "/repo/Tests/AppTests/UserTests.swift"
        let environment = ["CASSETTE_DB": "/tmp/shared.db"]
        #expect(CassetteSettings.storePath(trait: "Fixtures/api.db", environment: environment, testFile: file) == "/repo/Tests/AppTests/Fixtures/api.db")
        #expect(CassetteSettings.storePath(trait: "/abs/api.db", environment: environment, testFile: file) == "/abs/api.db")
        #expect(CassetteSettings.storePath(trait: nil, environment: environment, testFile: file) == "/tmp/shared.db")
        let relative = CassetteSettings.storePath(trait: nil, environment: ["CASSETTE_DB": "build/c.db"], testFile: file)
        #expect(relative == URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("build/c.db").standardizedFileURL.path)
    }

    @Test func theModeComesFromTheTraitThenCassetteRecordThenCI() throws {
        #expect(try CassetteSettings.mode(trait: .all, environment: ["CASSETTE_RECORD": "none", "CI": "1"]) == .all)
        #expect(try CassetteSettings.mode(trait: nil, environment: ["CASSETTE_RECORD": "missing", "CI": "1"]) == .missing)
        #expect(try CassetteSettings.mode(trait: nil, environment: ["CASSETTE_RECORD": "ALL"]) == .all)
        #expect(try CassetteSettings.mode(trait: nil, environment: ["CI": "true"]) == RecordMode.replayOnly)
        #expect(try CassetteSettings.mode(trait: nil, environment: ["CI": "false"]) == .once)
        #expect(try CassetteSettings.mode(trait: nil, environment: ["CI": "0"]) == .once)
        #expect(try CassetteSettings.mode(trait: nil, environment: [:]) == .once)
    }

    @Test func anUnknownRecordModeSaysWhichAreValid() {
        #expect {
            try CassetteSettings.mode(trait: nil, environment: ["CASSETTE_RECORD": "sometimes"])
        } throws: { error in
            "\(error)" == "CASSETTE_RECORD=sometimes is not a record mode; use none, once, missing or all"
        }
    }

    @Test(.cassette(mode: RecordMode.replayOnly, allowUnused: false), arguments: [3, 5])
    func aParameterizedCaseIsNamedWithItsArgument(number: Int) {
        #expect(Cassette.current.name == "CassetteSettingsTests/aParameterizedCaseIsNamedWithItsArgument(number:)[\(number)]")
    }
}
