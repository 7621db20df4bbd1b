import Testing

@testable import WellPlateCore

/// The one serving decision: what a mode and `--on-miss` make of a request, given what the
/// cassette holds.
@Suite("Serving policy")
struct ServingPolicyTests {
    @Test func aReplayThatRecordsItsMissesRunsAsMissing() {
        let policy = ServingPolicy(mode: .replayOnly, onMiss: .record)
        #expect(policy.mode == .missing)
        #expect(policy.records && policy.forwards && !policy.isReplayOnly)
        #expect(policy.name == "replay")
    }

    @Test func onlyAReplayWhoseMissesAreErrorsNeverForwards() {
        #expect(ServingPolicy(mode: .replayOnly).isReplayOnly)
        #expect(!ServingPolicy(mode: .replayOnly, onMiss: .passthrough).isReplayOnly)
        #expect(!ServingPolicy(mode: .replayOnly, onMiss: .passthrough).records)
        #expect(!ServingPolicy(mode: .once).isReplayOnly)
        #expect(ServingPolicy(mode: .all).name == "record")
    }

    @Test func aSessionKeepsTheProxysOnMissAndTakesTheModeItAsksFor() {
        let proxy = ServingPolicy(mode: .replayOnly, onMiss: .record)
        #expect(proxy.session(mode: nil) == proxy)
        #expect(proxy.session(mode: .all) == ServingPolicy(mode: .all, onMiss: .record))
    }

    @Test(arguments: [
        (RecordMode.replayOnly, ServingPolicy.OnMiss.error, false, false, ServingPolicy.Step.replay(orPassthrough: false)),
        (.replayOnly, .passthrough, false, false, .replay(orPassthrough: true)),
        (.replayOnly, .record, false, false, .record),
        (.replayOnly, .record, true, true, .replay(orPassthrough: false)),
        (.once, .error, true, false, .replay(orPassthrough: false)),
        (.once, .error, false, false, .record),
        (.missing, .error, true, false, .record),
        (.missing, .error, true, true, .replay(orPassthrough: false)),
        (.all, .error, true, true, .record),
    ])
    func theStepFollowsTheModeAndWhatTheCassetteHolds(
        mode: RecordMode, onMiss: ServingPolicy.OnMiss, recorded: Bool, unserved: Bool, expected: ServingPolicy.Step
    ) {
        let step = ServingPolicy(mode: mode, onMiss: onMiss).step(isRecorded: { recorded }, hasUnservedRecording: { unserved })
        #expect(step == expected)
    }

    @Test func theCassetteIsAskedOnlyWhatTheModeNeeds() {
        var asked: [String] = []
        func recorded() -> Bool {
            asked.append("recorded")
            return true
        }
        func unserved() -> Bool {
            asked.append("unserved")
            return true
        }
        _ = ServingPolicy(mode: .all).step(isRecorded: recorded, hasUnservedRecording: unserved)
        _ = ServingPolicy(mode: .replayOnly).step(isRecorded: recorded, hasUnservedRecording: unserved)
        #expect(asked.isEmpty)
        _ = ServingPolicy(mode: .once).step(isRecorded: recorded, hasUnservedRecording: unserved)
        #expect(asked == ["recorded"])
    }
}
