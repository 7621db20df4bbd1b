import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// The four record modes, each through `RecordingTransport.open` over libcurl against the sample
/// API. `/api/flaky` answers with its per-key hit count, so a body says whether the answer came
/// from the upstream (and which hit) or from the cassette; `/api/flaky/count` counts the hits.
@Suite("Record modes")
final class RecordModeTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "record-modes")
    }

    var store: String { directory.path() }

    /// Sends `names` in order through a new session in `mode`; returns the attempt numbers received.
    func session(_ mode: RecordMode, _ base: URL, _ names: String...) async throws -> [Int] {
        try await withRecordingTransport(path: store, mode: mode) { transport in
            var attempts: [Int] = []
            for name in names {
                attempts.append(try await transport.flaky(base, name))
            }
            return attempts
        }
    }

    /// The stored attempt numbers of `name`, in sequence order, with their sequences.
    func stored(_ name: String) async throws -> [(sequence: Int, attempt: Int)] {
        try await storedInteractions(store).filter { $0.key == flakyKey(name) }.map { ($0.sequence, try $0.flakyAttempt()) }
    }

    @Test func onceRecordsAnAbsentKeyAndReplaysItFromThenOn() async throws {
        try await withSampleAPI { base in
            let probe = try UpstreamProbe(base: base)
            #expect(try await session(.once, base, "a", "a") == [1, 1])
            #expect(try await session(.once, base, "a", "b", "a") == [1, 1, 1])
            #expect(try await probe.flakyHits("a") == 1)
            #expect(try await probe.flakyHits("b") == 1)
            #expect(try await stored("a").map(\.sequence) == [0])
            #expect(try await stored("a").map(\.attempt) == [1])
            #expect(try await stored("b").map(\.attempt) == [1])
        }
    }

    @Test func missingReplaysWhatIsRecordedAndRecordsEachRepeatBeyondIt() async throws {
        try await withSampleAPI { base in
            let probe = try UpstreamProbe(base: base)
            #expect(try await session(.missing, base, "a", "a") == [1, 2])
            // Two replays, then the third repeat is a miss that goes upstream; a new key too.
            #expect(try await session(.missing, base, "a", "a", "a", "b") == [1, 2, 3, 1])
            #expect(try await probe.flakyHits("a") == 3)
            #expect(try await probe.flakyHits("b") == 1)
            let rows = try await stored("a")
            #expect(rows.map(\.sequence) == [0, 1, 2])
            #expect(rows.map(\.attempt) == [1, 2, 3])
        }
    }

    @Test func allForwardsEveryRequestAndReplacesWhatTheCassetteHadForItsKeys() async throws {
        try await withSampleAPI { base in
            let probe = try UpstreamProbe(base: base)
            #expect(try await session(.missing, base, "a", "a", "b") == [1, 2, 1])
            #expect(try await session(.all, base, "a", "a", "a") == [3, 4, 5])
            #expect(try await probe.flakyHits("a") == 5)
            let rows = try await stored("a")
            #expect(rows.map(\.sequence) == [0, 1, 2])
            #expect(rows.map(\.attempt) == [3, 4, 5])
            // A key the session did not send keeps its recording.
            #expect(try await stored("b").map(\.attempt) == [1])
        }
    }

    @Test func noneReplaysOnlyAndAMissIsAnErrorThatNeverReachesTheUpstream() async throws {
        try await withSampleAPI { base in
            let probe = try UpstreamProbe(base: base)
            #expect(try await session(.missing, base, "a") == [1])
            try await withRecordingTransport(path: store, mode: .replayOnly) { transport in
                #expect(try await transport.flaky(base, "a") == 1)
                #expect(try await transport.flaky(base, "a") == 1)
                let miss = try await #require(throws: CassetteMiss.self) { try await transport.flaky(base, "b") }
                #expect(miss.method == .get)
                #expect(miss.key == flakyKey("b"))
                #expect(miss.cassette == "dev")
                #expect(miss.exhaustedAfter == nil)
            }
            #expect(try await probe.flakyHits("a") == 1)
            #expect(try await probe.flakyHits("b") == 0)
            #expect(try await storedInteractions(store).count == 1)
        }
    }

    /// `.none` where a `RecordMode?` is expected means "no mode given": no case may be named so.
    /// The command line and cassette.json still spell replay-only `none`.
    @Test func noCaseIsNamedNoneButReplayOnlyIsSpelledNone() throws {
        #expect(!RecordMode.allCases.map { "\($0)" }.contains("none"))
        #expect(RecordMode(rawValue: "none") == .replayOnly)
        let decoded = try JSONDecoder().decode([RecordMode].self, from: Data(#"["none", "once"]"#.utf8))
        #expect(decoded == [.replayOnly, .once])
        let optional: RecordMode? = .replayOnly
        #expect(optional != nil)
    }
}
