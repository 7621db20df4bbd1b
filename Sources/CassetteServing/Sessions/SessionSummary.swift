import CassetteKernel
import Foundation
import NIOCore
import WellPlateCore
import WellPlateNetworking

/// What a session served, as `DELETE /__cassette/sessions/ID` answers it and the proxy logs it
/// when the session closes: counts since it started (or was reset), each key that missed with
/// the recordings that came nearest, and the keys it never used.
package struct SessionSummary: Sendable {
    package struct Missed: Sendable {
        package let key: String
        /// How many requests missed with this key.
        package var count: Int
        package let message: String
        package let nearest: [KeyDifference]
        /// When its first request arrived, to list misses in order across event loops.
        package var firstArrived: NIODeadline
    }

    package let served: Int
    package let recorded: Int
    package let missed: [Missed]
    package let unused: [String]
    /// The keys of the gRPC methods (`POST /package.Service/Method`) no call of the session
    /// used; `nil` when its cassette has no gRPC call.
    package let unusedGRPCMethods: [String]?

    package init(_ tally: SessionJournal.Tally, unused: [String], unusedGRPCMethods: [String]? = nil) {
        served = tally.served
        recorded = tally.recorded
        missed = tally.missed
        self.unused = unused
        self.unusedGRPCMethods = unusedGRPCMethods
    }

    /// `served N, recorded N, missed N, unused recordings N` (`, unused gRPC methods N` when
    /// the cassette has gRPC calls, as the proxy's own summary says it), for the proxy's log.
    package var line: String {
        let methods = unusedGRPCMethods.map { ", unused gRPC methods \($0.count)" } ?? ""
        return "served \(served), recorded \(recorded), missed \(missed.reduce(0) { $0 + $1.count }), unused recordings \(unused.count)" + methods
    }

    package func json() -> JSONObject {
        var json: JSONObject = [
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
        if let unusedGRPCMethods { json["unusedGRPCMethods"] = .array(unusedGRPCMethods.map { .string(Self.methodPath($0)) }) }
        return json
    }

    /// `/package.Service/Method` of a gRPC method's key, as the proxy's summary names it.
    package static func methodPath(_ key: String) -> String {
        key.hasPrefix("POST ") ? String(key.dropFirst(5)) : key
    }
}
