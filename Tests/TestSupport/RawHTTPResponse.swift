import Foundation
import WellPlateCore
import WellPlateNetworking

/// One HTTP/1.1 response read off a `RawConnection`, for tests that need the exact framing
/// (keep-alive, pipelining, error answers) rather than what a client library makes of it.
package struct RawHTTPResponse: Sendable {
    package init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    package var status: Int
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]

    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    package var bodyText: String { body.text }

    /// Every complete response at the start of `bytes`, in order. Bodies are framed by
    /// `Content-Length`; 1xx, 204 and 304 have none; without a length the body runs to the end.
    package static func parseAll(_ bytes: [UInt8]) -> [RawHTTPResponse] {
        var responses: [RawHTTPResponse] = []
        var rest = bytes[...]
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        while let headEnd = rest.firstRange(of: separator) {
            let headText = String(decoding: rest[..<headEnd.lowerBound], as: UTF8.self)
            var lines = headText.components(separatedBy: "\r\n")
            let statusLine = lines.removeFirst().split(separator: " ")
            guard statusLine.count >= 2, let status = Int(statusLine[1]) else { break }
            let headers = lines.compactMap { line -> (name: String, value: String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
            var response = RawHTTPResponse(status: status, headers: headers, body: [])
            let bodyStart = headEnd.upperBound
            if (100..<200).contains(status) || status == 204 || status == 304 {
                rest = rest[bodyStart...]
            } else if let length = response.header("Content-Length").flatMap(Int.init) {
                guard rest.distance(from: bodyStart, to: rest.endIndex) >= length else { break }
                let bodyEnd = rest.index(bodyStart, offsetBy: length)
                response.body = Array(rest[bodyStart..<bodyEnd])
                rest = rest[bodyEnd...]
            } else {
                response.body = Array(rest[bodyStart...])
                rest = rest[rest.endIndex...]
            }
            responses.append(response)
        }
        return responses
    }
}

extension RawConnection {
    /// Reads until `count` complete responses arrived (or the peer closed) and returns them.
    package func receiveResponses(_ count: Int) async throws -> [RawHTTPResponse] {
        let bytes = try await receive { RawHTTPResponse.parseAll($0).count >= count }
        return RawHTTPResponse.parseAll(bytes)
    }

    /// A minimal `GET` with the headers HTTP/1.1 requires.
    package static func get(_ target: String) -> String {
        "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    }

    /// A `POST` with a JSON body and its `Content-Length`.
    package static func post(_ target: String, json: String) -> String {
        "POST \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\n\r\n\(json)"
    }
}
