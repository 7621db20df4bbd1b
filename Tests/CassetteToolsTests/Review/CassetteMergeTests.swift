import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// The three-way rules of `CassetteMerge`, recording by recording.
@Suite("Cassette merge")
struct CassetteMergeTests {
    static func recording(_ target: String, _ body: String, sequence: Int = 0, at seconds: TimeInterval = 0) -> Interaction {
        var interaction = Recordings.make(.get, target, body: Data(body.utf8), recordedAt: Recordings.recordedAt.addingTimeInterval(seconds))
        interaction.sequence = sequence
        return interaction
    }

    static func snapshot(_ interactions: Interaction...) -> CassetteMerge.Snapshot {
        CassetteMerge.Snapshot(interactions: interactions)
    }

    static func bodies(_ result: CassetteMerge.Result) -> [String] {
        result.interactions.map { "\($0.key)#\($0.sequence)=\(String(decoding: $0.responseBody, as: UTF8.self))" }
    }

    @Test func aDeletionOnOneSideIsTakenWhenTheOtherLeftTheRecordingAlone() {
        let a = Self.recording("/a", "1")
        let b = Self.recording("/b", "2")
        let result = CassetteMerge().merge(base: Self.snapshot(a, b), ours: Self.snapshot(a, b), theirs: Self.snapshot(a))
        #expect(Self.bodies(result) == ["GET /a#0=1"])
        #expect(result.conflicts.isEmpty)
        #expect(result.takenFromTheirs == 1)
    }

    @Test func theSameChangeOnBothSidesAndARerecordingWithTheSameAnswerAreNoConflict() {
        let base = Self.recording("/a", "old")
        let ours = Self.recording("/a", "new", at: 60)
        let theirs = Self.recording("/a", "new", at: 120)
        #expect(CassetteMerge().merge(base: Self.snapshot(base), ours: Self.snapshot(ours), theirs: Self.snapshot(theirs)).conflicts.isEmpty)
        // Theirs re-recorded and got the same answer: ours' change stands.
        let rerecorded = Self.recording("/a", "old", at: 300)
        let result = CassetteMerge().merge(base: Self.snapshot(base), ours: Self.snapshot(ours), theirs: Self.snapshot(rerecorded))
        #expect(result.conflicts.isEmpty)
        #expect(Self.bodies(result) == ["GET /a#0=new"])
    }

    /// A store from before HTTP versions were kept (`nil`) against the same answer re-recorded
    /// over HTTP/2: no change, so ours' own change stands.
    @Test func aRerecordingOverAnotherHTTPVersionWithTheSameAnswerIsNoConflict() {
        let base = Self.recording("/a", "old")
        let ours = Self.recording("/a", "new", at: 60)
        var rerecorded = Self.recording("/a", "old", at: 300)
        rerecorded.httpVersion = .http2
        let result = CassetteMerge().merge(base: Self.snapshot(base), ours: Self.snapshot(ours), theirs: Self.snapshot(rerecorded))
        #expect(result.conflicts.isEmpty, "\(result.conflicts)")
        #expect(Self.bodies(result) == ["GET /a#0=new"])
    }

    @Test func changeAgainstDeletionAndDifferentAdditionsAreConflictsPreferDecides() {
        let base = Self.recording("/a", "old")
        let changed = Self.recording("/a", "changed")
        let oursNew = Self.recording("/n", "ours")
        let theirsNew = Self.recording("/n", "theirs")
        let sides = (base: Self.snapshot(base), ours: Self.snapshot(changed, oursNew), theirs: Self.snapshot(theirsNew))
        let unresolved = CassetteMerge().merge(base: sides.base, ours: sides.ours, theirs: sides.theirs)
        #expect(
            unresolved.conflicts.map(\.description) == [
                "dev GET /a #0: changed in ours, deleted in theirs",
                "dev GET /n #0: added differently on both sides",
            ])
        #expect(Self.bodies(unresolved) == ["GET /a#0=changed", "GET /n#0=ours"])
        let theirs = CassetteMerge(preferring: .theirs).merge(base: sides.base, ours: sides.ours, theirs: sides.theirs)
        #expect(Self.bodies(theirs) == ["GET /n#0=theirs"])
    }

    @Test func sequencePositionsMergeIndependently() {
        let base = Self.snapshot(Self.recording("/p", "0"), Self.recording("/p", "1", sequence: 1))
        let ours = Self.snapshot(Self.recording("/p", "0*"), Self.recording("/p", "1", sequence: 1))
        let theirs = Self.snapshot(Self.recording("/p", "0"), Self.recording("/p", "1*", sequence: 1), Self.recording("/p", "2", sequence: 2))
        let result = CassetteMerge().merge(base: base, ours: ours, theirs: theirs)
        #expect(result.conflicts.isEmpty)
        #expect(Self.bodies(result) == ["GET /p#0=0*", "GET /p#1=1*", "GET /p#2=2"])
    }
}
