import Foundation
import Synchronization
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// Opening a cassette with a preparer: every body reaches the preparer once, and a lookup's pick
/// names the answer prepared for the very recording the sequence chose.
@Suite("Replay answers prepared while loading")
final class ReplayAnswerPreparerTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "preparer")
    }

    /// Answers are the body text and the recording's id; bodies are copied into one array.
    struct TextPreparer: ReplayAnswerPreparer, Sendable {
        var bodies: [Data] = []

        mutating func storeBody(_ bytes: UnsafeRawBufferPointer, number: Int) {
            #expect(number == bodies.count)
            bodies.append(Data(bytes))
        }

        mutating func prepare(_ recording: inout Interaction, number: Int, responseHeaderBlock: Int) -> String {
            recording.responseBody = bodies[number]
            return "\(recording.id ?? -1):" + String(decoding: bodies[number], as: UTF8.self)
        }
    }

    @Test func picksNameTheAnswersOfTheRecordingsTheSequenceChose() async throws {
        let store = try await CassetteStore.open(path: directory.path(), access: .readWrite)
        // Interleaved keys: rows arrive out of key order and the index regroups them.
        let order = ["/a", "/b", "/a", "/c", "/a", "/b"]
        try await store.record(batch: order.enumerated().map { Recordings.make(.get, $1, body: Data("\($1)#\($0)".utf8)) })
        let (session, answers) = try await CassetteSession.open(store: store, options: .init(cassette: "dev", sequencePolicy: .fail), preparing: TextPreparer())
        #expect(answers.count == order.count)

        var served: [String: [String]] = [:]
        for target in ["/a", "/b", "/c"] {
            let keyText = Recordings.make(.get, target).key
            let slot = session.index.slot(for: keyText)
            while case .loaded(let position) = try? session.replayPick(slot: slot, keyText: keyText) {
                let recording = session.index.loadedRecording(at: position)
                #expect(
                    answers[position] == "\(recording.id ?? -1):" + String(decoding: recording.responseBody, as: UTF8.self),
                    "the index keeps the preparer's body")
                served[target, default: []].append(answers[position])
            }
        }
        #expect(served["/a"]?.map { $0.split(separator: ":")[1] } == ["/a#0", "/a#2", "/a#4"], "sequence order")
        #expect(served["/b"]?.map { $0.split(separator: ":")[1] } == ["/b#1", "/b#5"])
        #expect(served["/c"]?.map { $0.split(separator: ":")[1] } == ["/c#3"])
        #expect(session.statistics.replayed == 6)
        #expect(session.statistics.missed == 3, "each exhausted sequence counts as a miss")
        #expect(throws: CassetteMiss.self) { try session.replayPick(slot: nil, keyText: "GET /absent") }
        try await store.close()
    }
}
