import Foundation

/// One gRPC message of a call in cassette's `_grpcMessages`, shaped after Chrome's
/// `_webSocketMessages`: `send` (client to server) or `receive`, seconds since 1970, and where its
/// frame (the 5-byte length prefix, then the message) starts in the entry's request body
/// (`send`) or response content (`receive`), with the message's size. The client's half-close is
/// a `send` with `end: true` and no frame. `json`: the message as protobuf JSON, when the store
/// has its descriptors.
package struct HARGRPCMessage: Codable, Sendable, Equatable {
    package var type: String
    package var time: Double
    package var bodyOffset: Int?
    package var size: Int?
    package var end: Bool?
    package var json: HARJSON?

    package init(type: String, time: Double, bodyOffset: Int? = nil, size: Int? = nil, end: Bool? = nil, json: HARJSON? = nil) {
        self.type = type
        self.time = time
        self.bodyOffset = bodyOffset
        self.size = size
        self.end = end
        self.json = json
    }
}
