import Foundation
import NIOCore
import WellPlateCore
import WellPlateNetworking

/// What a session served, as `DELETE /__cassette/sessions/ID` answers it and the proxy logs it
/// when the session closes: counts since it started (or was reset), each key that missed with
/// the recordings that came nearest, and the keys it never used.
struct SessionSummary: Sendable {
    struct Missed: Sendable {
        let key: String
        /// How many requests missed with this key.
        var count: Int
        let message: String
        let nearest: [KeyDifference]
        /// When its first request arrived, to list misses in order across event loops.
        var firstArrived: NIODeadline
    }

    let served: Int
    let recorded: Int
    let missed: [Missed]
    let unused: [String]

    init(_ tally: SessionJournal.Tally, unused: [String]) {
        served = tally.served
        recorded = tally.recorded
        missed = tally.missed
        self.unused = unused
    }

    /// `served N, recorded N, missed N, unused N`, for the proxy's log.
    var line: String {
        "served \(served), recorded \(recorded), missed \(missed.reduce(0) { $0 + $1.count }), unused recordings \(unused.count)"
    }

    func json() -> JSONObject {
        [
            "served": .integer(Int64(served)),
            "recorded": .integer(Int64(recorded)),
            "missed": .array(
                missed.map { missed in
                    [
                        "key": .string(missed.key),
                        "count": .integer(Int64(missed.count)),
                        "message": .string(missed.message),
                        "nearest": .array(
                            missed.nearest.map { difference in
                                ["key": .string(difference.recorded.rawValue), "differences": .array(difference.items.map { .string($0.description) })]
                            }),
                    ]
                }),
            "unused": .array(unused.map(JSONValue.string)),
        ]
    }
}
