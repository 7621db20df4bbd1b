import CassetteServing
import HTTPTypes
import NIOHPACK
import WellPlateCore

/// Moving gRPC metadata between HTTP/2 HEADERS (`HPACKHeaders`) and the store's `HTTPFields`.
enum GRPCHeaders {
    /// Made once: a name's validation showed in a replayed call's profile.
    static let statusName = HTTPField.Name("grpc-status")!
    static let messageName = HTTPField.Name("grpc-message")!
    static let encodingName = HTTPField.Name("grpc-encoding")!

    /// The metadata of a HEADERS frame: every field but the pseudo-headers.
    static func metadata(_ headers: HPACKHeaders) -> HTTPFields {
        var fields = HTTPFields()
        for header in headers where !header.name.hasPrefix(":") {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        return fields
    }

    /// Request fields a recording does not keep: the hop's own (`te: trailers`), the length,
    /// `grpc-timeout`, the time the client had left, different on every call (a replay honours the
    /// live request's), and `x-cassette-session`, which picks a session and is never forwarded.
    /// Two recordings of the same call store the same metadata.
    static let unstoredRequestFields: Set<String> = HTTPFraming.hopByHopHeaders.union(HTTPFraming.bodyLengthHeaders).union([
        "grpc-timeout", SessionHeader.lowercasedName,
    ])

    /// The request metadata as a recording stores it (before redaction).
    static func storedRequestMetadata(_ headers: HPACKHeaders) -> HTTPFields {
        var fields = metadata(headers)
        fields.removeAll { unstoredRequestFields.contains($0.name.canonicalName) }
        return fields
    }

    /// Response HEADERS: `:status 200` and `fields`.
    static func response(_ fields: HTTPFields) -> HPACKHeaders {
        var headers = HPACKHeaders([(":status", "200")])
        for field in fields { headers.add(name: field.name.canonicalName, value: field.value) }
        return headers
    }

    static func trailers(_ fields: HTTPFields) -> HPACKHeaders {
        var headers = HPACKHeaders()
        for field in fields { headers.add(name: field.name.canonicalName, value: field.value) }
        return headers
    }

    /// The trailers of an error the proxy answers itself: `grpc-status` and `grpc-message`.
    static func status(_ code: GRPCStatusCode, _ message: String) -> HTTPFields {
        var fields = HTTPFields()
        fields[Self.statusName] = String(code.rawValue)
        fields[Self.messageName] = GRPCMessageText.encode(message)
        return fields
    }

    /// A trailers-only answer: one HEADERS with `:status 200`, the content type and the status.
    static func trailersOnly(_ code: GRPCStatusCode, _ message: String) -> HPACKHeaders {
        var fields = HTTPFields()
        fields[.contentType] = "application/grpc"
        fields.append(contentsOf: status(code, message))
        return response(fields)
    }
}
