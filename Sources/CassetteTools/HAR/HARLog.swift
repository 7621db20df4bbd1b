import Foundation
import WellPlateCore
import WellPlateNetworking

/// An HTTP Archive (HAR 1.2, http://www.softwareishard.com/blog/har-12-spec/) as browsers'
/// DevTools, Charles, Proxyman and mitmproxy write it. Fields that some writers leave out are
/// optional when reading; `HARExporter` fills every field the specification requires.
public struct HARArchive: Codable, Sendable, Equatable {
    public var log: HARLog

    public init(log: HARLog) {
        self.log = log
    }

    /// Reads a HAR document; the error names what is wrong with it.
    public static func decode(_ data: Data) throws -> HARArchive {
        try JSONDecoder().decode(HARArchive.self, from: data)
    }

    /// The document as pretty-printed JSON with a final newline.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes, .sortedKeys]
        var data = try encoder.encode(self)
        data.append(UInt8(ascii: "\n"))
        return data
    }
}

public struct HARLog: Codable, Sendable, Equatable {
    public var version: String
    public var creator: HARCreator
    public var entries: [HAREntry]
    public var comment: String?

    public init(version: String = "1.2", creator: HARCreator, entries: [HAREntry], comment: String? = nil) {
        self.version = version
        self.creator = creator
        self.entries = entries
        self.comment = comment
    }
}

public struct HARCreator: Codable, Sendable, Equatable {
    public var name: String
    public var version: String

    public init(name: String, version: String) {
        self.name = name
        self.version = version
    }
}

public struct HAREntry: Codable, Sendable, Equatable {
    public var startedDateTime: String
    /// Total milliseconds.
    public var time: Double?
    public var request: HARRequest
    public var response: HARResponse
    public var cache: HARCache?
    public var timings: HARTimings?
    public var serverIPAddress: String?
    public var comment: String?

    public init(startedDateTime: String, time: Double?, request: HARRequest, response: HARResponse, cache: HARCache? = HARCache(), timings: HARTimings?, serverIPAddress: String? = nil, comment: String? = nil) {
        self.startedDateTime = startedDateTime
        self.time = time
        self.request = request
        self.response = response
        self.cache = cache
        self.timings = timings
        self.serverIPAddress = serverIPAddress
        self.comment = comment
    }
}

/// A header, query parameter or form parameter.
public struct HARNameValue: Codable, Sendable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A cookie as HAR lists it beside the headers; imports take cookies from the headers, which
/// hold the same information in order.
public struct HARCookie: Codable, Sendable, Equatable {
    public var name: String
    public var value: String
}

public struct HARRequest: Codable, Sendable, Equatable {
    public var method: String
    public var url: String
    public var httpVersion: String?
    public var cookies: [HARCookie]?
    public var headers: [HARNameValue]
    public var queryString: [HARNameValue]?
    public var postData: HARPostData?
    public var headersSize: Int?
    public var bodySize: Int?
}

public struct HARPostData: Codable, Sendable, Equatable {
    public var mimeType: String
    public var text: String?
    public var params: [HARParam]?
    /// Not in HAR 1.2 for requests, but written by several tools (and by `cassette export`) for
    /// request bodies that are not text.
    public var encoding: String?
}

public struct HARParam: Codable, Sendable, Equatable {
    public var name: String
    public var value: String?
}

public struct HARResponse: Codable, Sendable, Equatable {
    public var status: Int
    public var statusText: String?
    public var httpVersion: String?
    public var cookies: [HARCookie]?
    public var headers: [HARNameValue]
    public var content: HARContent
    public var redirectURL: String?
    public var headersSize: Int?
    public var bodySize: Int?
}

public struct HARContent: Codable, Sendable, Equatable {
    /// Length of the decoded body in bytes (absent in the empty `content` of a failed request).
    public var size: Int?
    public var compression: Int?
    public var mimeType: String?
    /// The decoded body: text as is, anything else base64 with `encoding: "base64"`.
    public var text: String?
    public var encoding: String?
}

public struct HARCache: Codable, Sendable, Equatable {
    public init() {}
}

public struct HARTimings: Codable, Sendable, Equatable {
    public var blocked: Double?
    public var dns: Double?
    public var connect: Double?
    public var send: Double?
    public var wait: Double?
    public var receive: Double?
    public var ssl: Double?

    public init(blocked: Double? = -1, dns: Double? = -1, connect: Double? = -1, send: Double?, wait: Double?, receive: Double?, ssl: Double? = -1) {
        self.blocked = blocked
        self.dns = dns
        self.connect = connect
        self.send = send
        self.wait = wait
        self.receive = receive
        self.ssl = ssl
    }
}
