/// The error code of an HTTP/2 RST_STREAM (RFC 9113, section 7), as a stored gRPC call keeps the
/// upstream's reset, and the gRPC status a client reads it as (gRPC's PROTOCOL-HTTP2.md,
/// "Errors"), so a call the upstream reset ends with the status the client would have got from
/// the upstream itself, live and on replay.
package struct HTTP2ResetCode: RawRepresentable, Sendable, Equatable {
    package let rawValue: Int

    package init(rawValue: Int) {
        self.rawValue = rawValue
    }

    private static let names = [
        "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED", "FRAME_SIZE_ERROR",
        "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
    ]

    /// The code `name` names (`INTERNAL_ERROR`, or an unknown code's `0x2a`), as a summary wrote it.
    package init?(name: String) {
        if let index = Self.names.firstIndex(of: name) {
            rawValue = index
        } else if name.hasPrefix("0x"), let value = Int(name.dropFirst(2), radix: 16) {
            rawValue = value
        } else {
            return nil
        }
    }

    /// `INTERNAL_ERROR`, `CANCEL`...; an unknown code by its number (`0x2a`).
    package var name: String {
        Self.names.indices.contains(rawValue) ? Self.names[rawValue] : "0x" + String(rawValue, radix: 16)
    }

    /// gRPC's mapping: REFUSED_STREAM is UNAVAILABLE (the server did not process the call),
    /// CANCEL CANCELLED, ENHANCE_YOUR_CALM RESOURCE_EXHAUSTED, INADEQUATE_SECURITY
    /// PERMISSION_DENIED, every other code INTERNAL.
    package var grpcStatus: GRPCStatusCode {
        switch rawValue {
        case 7: .unavailable
        case 8: .cancelled
        case 11: .resourceExhausted
        case 12: .permissionDenied
        default: .internalError
        }
    }
}
