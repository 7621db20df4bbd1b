import Foundation
import WellPlateCore
import WellPlateNetworking

/// An HTTP Archive (HAR 1.2, http://www.softwareishard.com/blog/har-12-spec/) as browsers'
/// DevTools, Charles, Proxyman and mitmproxy write it. Fields that some writers leave out are
/// optional when reading; `HARExporter` fills every field the specification requires.
package struct HARArchive: Codable, Sendable, Equatable {
    package var log: HARLog

    package init(log: HARLog) {
        self.log = log
    }

    /// Reads a HAR document; the error names what is wrong with it.
    package static func decode(_ data: Data) throws -> HARArchive {
        try JSONDecoder().decode(HARArchive.self, from: data)
    }

    /// The document as pretty-printed JSON with a final newline.
    package func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes, .sortedKeys]
        var data = try encoder.encode(self)
        data.append(UInt8(ascii: "\n"))
        return data
    }
}

package struct HARLog: Codable, Sendable, Equatable {
    package var version: String
    package var creator: HARCreator
    package var entries: [HAREntry]
    package var comment: String?

    package init(version: String = "1.2", creator: HARCreator, entries: [HAREntry], comment: String? = nil) {
        self.version = version
        self.creator = creator
        self.entries = entries
        self.comment = comment
    }
}

package struct HARCreator: Codable, Sendable, Equatable {
    package var name: String
    package var version: String

    package init(name: String, version: String) {
        self.name = name
        self.version = version
    }
}

package struct HAREntry: Codable, Sendable, Equatable {
    package var startedDateTime: String
    /// Total milliseconds.
    package var time: Double?
    package var request: HARRequest
    package var response: HARResponse
    package var cache: HARCache?
    package var timings: HARTimings?
    package var serverIPAddress: String?
    package var comment: String?
    /// Chrome's `_resourceType` (`websocket` on the entry of a WebSocket's `101`).
    package var resourceType: String?
    /// Chrome's `_webSocketMessages`, also written by mitmproxy: a WebSocket's messages on the
    /// entry of its `101`.
    package var webSocketMessages: [HARWebSocketMessage]?
    /// A gRPC call's messages in order (`_grpcMessages`, cassette's own field, after Chrome's
    /// `_webSocketMessages`): where each one's frame starts in the request or response body, and when.
    package var grpcMessages: [HARGRPCMessage]?

    package init(
        startedDateTime: String, time: Double?, request: HARRequest, response: HARResponse, cache: HARCache? = HARCache(), timings: HARTimings?,
        serverIPAddress: String? = nil, comment: String? = nil, resourceType: String? = nil, webSocketMessages: [HARWebSocketMessage]? = nil,
        grpcMessages: [HARGRPCMessage]? = nil
    ) {
        self.grpcMessages = grpcMessages
        self.startedDateTime = startedDateTime
        self.time = time
        self.request = request
        self.response = response
        self.cache = cache
        self.timings = timings
        self.serverIPAddress = serverIPAddress
        self.comment = comment
        self.resourceType = resourceType
        self.webSocketMessages = webSocketMessages
    }

    enum CodingKeys: String, CodingKey {
        case startedDateTime, time, request, response, cache, timings, serverIPAddress, comment
        case resourceType = "_resourceType"
        case webSocketMessages = "_webSocketMessages"
        case grpcMessages = "_grpcMessages"
    }
}

/// One message of a WebSocket in Chrome's `_webSocketMessages`: `send` (client to server) or
/// `receive`, seconds since 1970, the frame's opcode (1 text, 2 binary), and the payload (text as
/// is; binary base64, as Chrome writes it).
package struct HARWebSocketMessage: Codable, Sendable, Equatable {
    package var type: String
    package var time: Double
    package var opcode: Int
    package var data: String

    package init(type: String, time: Double, opcode: Int, data: String) {
        self.type = type
        self.time = time
        self.opcode = opcode
        self.data = data
    }
}

/// A header, query parameter or form parameter.
package struct HARNameValue: Codable, Sendable, Equatable {
    package var name: String
    package var value: String

    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A cookie as HAR lists it beside the headers; imports take cookies from the headers, which
/// hold the same information in order.
package struct HARCookie: Codable, Sendable, Equatable {
    package var name: String
    package var value: String
}

package struct HARRequest: Codable, Sendable, Equatable {
    package var method: String
    package var url: String
    package var httpVersion: String?
    package var cookies: [HARCookie]?
    package var headers: [HARNameValue]
    package var queryString: [HARNameValue]?
    package var postData: HARPostData?
    package var headersSize: Int?
    package var bodySize: Int?
}

package struct HARPostData: Codable, Sendable, Equatable {
    package var mimeType: String
    package var text: String?
    package var params: [HARParam]?
    /// Not in HAR 1.2 for requests, but written by several tools (and by `cassette export`) for
    /// request bodies that are not text.
    package var encoding: String?
}

package struct HARParam: Codable, Sendable, Equatable {
    package var name: String
    package var value: String?
}

package struct HARResponse: Codable, Sendable, Equatable {
    package var status: Int
    package var statusText: String?
    package var httpVersion: String?
    package var cookies: [HARCookie]?
    package var headers: [HARNameValue]
    package var content: HARContent
    package var redirectURL: String?
    package var headersSize: Int?
    package var bodySize: Int?
    /// HTTP trailers (`_trailers`, a custom field: HAR 1.2 has no place for them, and DevTools
    /// and mitmproxy leave them out): a gRPC call's `grpc-status`, `grpc-message` and trailing metadata.
    package var trailers: [HARNameValue]?

    enum CodingKeys: String, CodingKey {
        case status, statusText, httpVersion, cookies, headers, content, redirectURL, headersSize, bodySize
        case trailers = "_trailers"
    }
}

package struct HARContent: Codable, Sendable, Equatable {
    /// Length of the decoded body in bytes (absent in the empty `content` of a failed request).
    package var size: Int?
    package var compression: Int?
    package var mimeType: String?
    /// The decoded body: text as is, anything else base64 with `encoding: "base64"`.
    package var text: String?
    package var encoding: String?
}

package struct HARCache: Codable, Sendable, Equatable {
    package init() {}
}

package struct HARTimings: Codable, Sendable, Equatable {
    package var blocked: Double?
    package var dns: Double?
    package var connect: Double?
    package var send: Double?
    package var wait: Double?
    package var receive: Double?
    package var ssl: Double?

    package init(blocked: Double? = -1, dns: Double? = -1, connect: Double? = -1, send: Double?, wait: Double?, receive: Double?, ssl: Double? = -1) {
        self.blocked = blocked
        self.dns = dns
        self.connect = connect
        self.send = send
        self.wait = wait
        self.receive = receive
        self.ssl = ssl
    }
}
