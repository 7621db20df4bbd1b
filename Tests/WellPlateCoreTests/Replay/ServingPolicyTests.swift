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
        #expect(policy.asksToReplay)
    }

    @Test(arguments: [
        (RecordMode.replayOnly, ServingPolicy.OnMiss.error, true),
        (.replayOnly, .passthrough, true),
        (.replayOnly, .record, true),
        (.once, .record, false),
        (.missing, .error, false),
        (.all, .passthrough, false),
    ])
    func onlyAReplayAsksToReplayWhateverItsMissesGet(mode: RecordMode, onMiss: ServingPolicy.OnMiss, asksToReplay: Bool) {
        let policy = ServingPolicy(mode: mode, onMiss: onMiss)
        #expect(policy.asksToReplay == asksToReplay)
        #expect(policy.name == (asksToReplay ? "replay" : "record"))
    }

    @Test(arguments: [
        (RecordMode.replayOnly, ServingPolicy.OnMiss.error, true),
        (.replayOnly, .record, true),
        (.once, .error, true),
        (.missing, .error, true),
        (.all, .error, false),
    ])
    func onlyAllNeverReplaysAndReplacesWhatTheCassetteHad(mode: RecordMode, onMiss: ServingPolicy.OnMiss, replays: Bool) {
        let policy = ServingPolicy(mode: mode, onMiss: onMiss)
        #expect(policy.replaysRecordings == replays)
        #expect(policy.replacesRecordings == !replays)
        // Agrees with the step for a key whose recording no one has replayed yet.
        let step = policy.step(for: "GET /a", in: FakeRecordings(recorded: true, unserved: true))
        #expect((step != .record) == replays)
    }

    @Test func aCassetteThatIsOnlyLookedAtNeitherRecordsNorForwards() {
        let policy = ServingPolicy.replayOnly
        #expect(policy == ServingPolicy(mode: .replayOnly))
        #expect(policy.isReplayOnly && !policy.records && !policy.forwards)
    }

    @Test func theOptionsCarryThePolicyWhole() {
        var options = CassetteSession.Options(cassette: "dev", policy: ServingPolicy(mode: .replayOnly, onMiss: .record))
        #expect(options.policy.onMiss == .record)
        // The public mode is the one asked for; the policy keeps what misses get.
        #expect(options.mode == .replayOnly)
        #expect(options.policy.mode == .missing)
        options.mode = .all
        #expect(options.policy == ServingPolicy(mode: .all, onMiss: .record))
        #expect(CassetteSession.Options(mode: .once).policy == ServingPolicy(mode: .once))
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
        let step = ServingPolicy(mode: mode, onMiss: onMiss).step(for: "GET /a", in: FakeRecordings(recorded: recorded, unserved: unserved))
        #expect(step == expected)
    }

    @Test func theCassetteIsAskedOnlyWhatTheModeNeeds() {
        let recordings = FakeRecordings(recorded: true, unserved: true)
        _ = ServingPolicy(mode: .all).step(for: "GET /a", in: recordings)
        _ = ServingPolicy(mode: .replayOnly).step(for: "GET /a", in: recordings)
        #expect(recordings.asked.isEmpty)
        _ = ServingPolicy(mode: .once).step(for: "GET /a", in: recordings)
        #expect(recordings.asked == ["recorded GET /a"])
        _ = ServingPolicy(mode: .missing).step(for: "GET /b", in: recordings)
        #expect(recordings.asked == ["recorded GET /a", "unserved GET /b"])
    }

    /// Requests and WebSocket handshakes get the same step from what their recordings hold.
    @Test func aHandshakeGetsTheStepOfARequest() {
        let conversation = Conversation(
            cassette: "dev", url: "ws://api.test/ws", key: "GET /ws", requestHeaders: [:], subprotocol: nil, extensions: nil)
        let conversations = RecordedConversations([conversation])
        let missing = ServingPolicy(mode: .missing)
        #expect(missing.step(for: "GET /ws", in: conversations) == .replay(orPassthrough: false))
        _ = conversations.take("GET /ws")
        // Every recorded conversation served: `missing` records the next one.
        #expect(missing.step(for: "GET /ws", in: conversations) == .record)
        #expect(ServingPolicy(mode: .once).step(for: "GET /ws", in: conversations) == .replay(orPassthrough: false))
        #expect(ServingPolicy(mode: .once).step(for: "GET /other", in: conversations) == .record)
    }
}

/// Recordings that answer as told and note what they were asked.
private final class FakeRecordings: RecordingLookup {
    let recorded: Bool
    let unserved: Bool
    private(set) var asked: [String] = []

    init(recorded: Bool, unserved: Bool) {
        self.recorded = recorded
        self.unserved = unserved
    }

    func isRecorded(_ key: String) -> Bool {
        asked.append("recorded \(key)")
        return recorded
    }

    func hasUnservedRecording(_ key: String) -> Bool {
        asked.append("unserved \(key)")
        return unserved
    }
}
