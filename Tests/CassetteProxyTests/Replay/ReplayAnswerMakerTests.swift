import Foundation
import HTTPTypes
import NIOCore
import TestSupport
import Testing
import WellPlateCore

@testable import CassetteForward
@testable import CassetteKernel
@testable import CassetteProxy
@testable import CassetteServing
@testable import CassetteTools
@testable import CassetteUIServer
@testable import CassetteWebSocket

/// The one place a recording becomes an answer: latency, the stale policy, a streamed
/// recording's pieces and bodies that are never sent.
@Suite("Replay answer maker")
struct ReplayAnswerMakerTests {
    func maker(latency: ProxySettings.Latency = .none, stale: StalePolicy? = nil, missStatus: Int = 404) -> ReplayAnswerMaker {
        var settings = ProxySettings()
        settings.latency = latency
        settings.stalePolicy = stale
        settings.missStatus = missStatus
        return ReplayAnswerMaker(settings: settings, upstreamURLs: nil)
    }

    func buffer(_ data: Data) -> ByteBuffer {
        ByteBuffer(bytes: data)
    }

    @Test func aFreshRecordingIsAPreparedHitDelayedAsTheLatencyAsks() throws {
        let recording = Recordings.make(.get, "/v1/me", milliseconds: 40)
        for (latency, delay) in [(ProxySettings.Latency.none, Duration.zero), (.recorded, .milliseconds(40)), (.fixed(.milliseconds(5)), .milliseconds(5))] {
            let answer = maker(latency: latency).answer(recording, body: buffer(recording.responseBody))
            #expect(answer.source == .replayed && answer.delay == delay && answer.staleNotice == nil && answer.statusCode == 200)
            guard case .prepared(let head) = answer.head, case .buffer(let body?) = answer.body else {
                Issue.record("expected a prepared head and body, got \(answer.head) \(answer.body)")
                return
            }
            #expect(head.headers["Content-Length"] == ["11"] && head.headers["X-Cassette"] == ["hit"])
            #expect(body.readableBytes == 11)
        }
    }

    @Test func aHeadRecordingAndA304SendNoBody() {
        for recording in [Recordings.make(.head, "/v1/me"), Recordings.make(.get, "/v1/me", status: 304)] {
            let answer = maker().answer(recording, body: buffer(recording.responseBody))
            guard case .buffer(nil) = answer.body else {
                Issue.record("\(recording.method) \(recording.statusCode): expected no body, got \(answer.body)")
                continue
            }
        }
    }

    @Test func aStaleRecordingIsServedWithItsNoticeOrRefusedWhenThePolicyFails() throws {
        let now = Recordings.recordedAt.addingTimeInterval(100 * 86_400)
        let old = Recordings.make(.get, "/old")
        let fresh = Recordings.make(.get, "/new", recordedAt: now.addingTimeInterval(-3600))

        let warns = maker(stale: StalePolicy(maxAgeDays: 90, fails: false, now: now))
        let served = warns.answer(old, body: buffer(old.responseBody))
        #expect(served.source == .replayed && served.statusCode == 200)
        #expect(served.staleNotice == "recorded 2025-06-15T15:06:40Z, 100 days ago; --max-age 90")
        #expect(warns.answer(fresh, body: buffer(fresh.responseBody)).staleNotice == nil)

        let fails = maker(stale: StalePolicy(maxAgeDays: 90, fails: true, now: now), missStatus: 410)
        let refused = fails.answer(old, body: buffer(old.responseBody))
        #expect(refused.source == .stale && refused.statusCode == 410 && refused.staleNotice != nil)
        guard case .bytes(let body) = refused.body else {
            Issue.record("expected a JSON refusal, got \(refused.body)")
            return
        }
        let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(json["error"] as? String == "cassette_stale" && json["key"] as? String == old.key)
        #expect(fails.answer(fresh, body: buffer(fresh.responseBody)).source == .replayed)
    }

    @Test func aStreamedRecordingGoesOutInItsPiecesAtTheirOffsetsOnlyWithRecordedLatency() throws {
        var recording = Recordings.make(.get, "/events", body: Data("data: 1\n\ndata: 2\n\n".utf8), milliseconds: 300)
        recording.chunks = [ResponseChunk(offset: .milliseconds(100), size: 9), ResponseChunk(offset: .milliseconds(250), size: 9)]

        let timed = maker(latency: .recorded).answer(recording, body: buffer(recording.responseBody))
        guard case .pieces(let body, let pieces) = timed.body else {
            Issue.record("expected pieces, got \(timed.body)")
            return
        }
        #expect(body.readableBytes == 18)
        #expect(pieces.map(\.bytes) == [0..<9, 9..<18])
        #expect(pieces.map(\.offset) == [.milliseconds(100), .milliseconds(250)])
        // The head waits what the recording took before its last piece.
        #expect(timed.delay == .milliseconds(50))

        let untimed = maker().answer(recording, body: buffer(recording.responseBody))
        guard case .pieces(_, let atOnce) = untimed.body else {
            Issue.record("expected pieces, got \(untimed.body)")
            return
        }
        #expect(atOnce.allSatisfy { $0.offset == .zero } && untimed.delay == .zero)
    }
}
