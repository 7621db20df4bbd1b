import CassetteTesting
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fifty cases of one test run in parallel, each in its own cassette; every cassette answers the
/// same two requests with its own case number, so an answer from another case's cassette (through
/// the client or through URLSession) shows up as a wrong number.
@Suite(.cassetteFixture(ParallelFixture.store, ParallelFixture.recordings))
struct ParallelCassetteTests {
    typealias Answer = ParallelFixture.Answer

    @Test(.cassette(store: ParallelFixture.store, mode: RecordMode.replayOnly, allowUnused: false), arguments: ParallelFixture.cases)
    func replaysItsOwnCassette(number: Int) async throws {
        let cassette = Cassette.current
        #expect(cassette.name == "ParallelCassetteTests/replaysItsOwnCassette(number:)[\(number)]")
        let base = URL(string: "http://127.0.0.1:1")!
        let viaClient = try await cassette.client.get(url: base.appending(path: "api/whoami"), responseType: Answer.self)
        #expect(viaClient == Answer(number: number))

        var request = URLRequest(url: base.appending(path: "api/echo"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"ask":"number"}"#.utf8)
        let (data, response) = try await cassette.urlSession.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(try JSONDecoder().decode(Answer.self, from: data) == Answer(number: number))
    }
}

enum ParallelFixture {
    static let store = CassetteFixture.path("parallel")
    static let cases = Array(0..<50)

    struct Answer: Codable, Equatable {
        var number: Int
    }

    @Sendable static func recordings() -> [Interaction] {
        cases.flatMap { number -> [Interaction] in
            let cassette = "ParallelCassetteTests/replaysItsOwnCassette(number:)[\(number)]"
            return [
                CassetteFixture.recording(cassette: cassette, .get, "/api/whoami", json: #"{"number":\#(number)}"#),
                CassetteFixture.recording(cassette: cassette, .post, "/api/echo", json: #"{"number":\#(number)}"#, requestBody: #"{"ask":"number"}"#),
            ]
        }
    }
}
