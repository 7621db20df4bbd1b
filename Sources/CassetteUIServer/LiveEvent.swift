import CassetteKernel
import Foundation
import WellPlateCore

/// One request the proxy answered, as the UI's Live view and the run report show it: tagged as
/// a session's journal tags it, and for a miss, the nearest recordings with what differs.
package struct LiveEvent: Sendable {
    package var at: Date
    package var method: String
    package var target: String
    package var status: Int
    /// `hit`, `recorded`, `passthrough`, `miss`, `stale` or `error` (the `X-Cassette` value).
    package var tag: String
    package var durationMilliseconds: Double
    /// The session's id, for a request a session served.
    package var session: String?
    package var miss: CassetteMiss?
    /// For a gRPC call: how it ended.
    package var grpc: GRPCCall?

    /// A gRPC call's `grpc-status` by name and its `grpc-message`.
    package struct GRPCCall: Sendable {
        package var status: String
        package var message: String?
    }

    package var json: JSONValue {
        var object: JSONObject = [
            "at": .string(Self.timestamp(at)), "method": .string(method), "target": .string(target), "status": .integer(Int64(status)),
            "tag": .string(tag), "durationMs": .number(durationMilliseconds), "session": session.map(JSONValue.string) ?? .null,
        ]
        if let grpc {
            object["grpc"] = ["status": .string(grpc.status), "message": grpc.message.map(JSONValue.string) ?? .null]
        }
        if let miss {
            object["miss"] = [
                "key": .string(miss.key),
                "summary": .string(miss.summary),
                "nearest": .array(
                    miss.nearest.map { difference in
                        ["key": .string(difference.recorded.rawValue), "differences": .array(difference.items.map { .string($0.description) })]
                    }),
            ]
        }
        return .object(object)
    }

    /// ISO 8601 with milliseconds (the page shows the time of day from it).
    package static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
