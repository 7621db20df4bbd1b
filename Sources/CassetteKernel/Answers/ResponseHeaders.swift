import HTTPTypes
import NIOHTTP1
import WellPlateCore

/// Turns stored or upstream header fields into the headers the proxy sends: framing is the
/// proxy's own (hop-by-hop fields dropped, `Content-Length` describing the body it sends).
package enum ResponseHeaders {
    /// `fields` without hop-by-hop ones, values as sent (`RawHeaderBytes`); room for the
    /// `Content-Length` and `X-Cassette` the caller adds.
    package static func forwardable(_ fields: HTTPFields) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.reserveCapacity(fields.count + 2)
        for field in fields where !HTTPFraming.unforwardedResponseHeaders.contains(field.name.canonicalName) {
            headers.add(name: field.name.rawName, value: RawHeaderBytes.value(of: field))
        }
        return headers
    }

    package static func make(from fields: HTTPFields, bodyCount: Int, requestMethod: NIOHTTP1.HTTPMethod, statusCode: Int) -> HTTPHeaders {
        var headers = forwardable(fields)
        if requestMethod == .HEAD {
            // A HEAD answer describes the GET body it would have had.
            if let length = fields[.contentLength] { headers.add(name: "Content-Length", value: length) }
        } else if HTTPFraming.statusAllowsBody(statusCode) {
            headers.add(name: "Content-Length", value: String(bodyCount))
        }
        return headers
    }
}
