/// gRPC's status codes (the `grpc-status` trailer), with the names gRPC's documentation uses.
package enum GRPCStatusCode: Int, Sendable, CaseIterable {
    case ok = 0, cancelled, unknown, invalidArgument, deadlineExceeded, notFound, alreadyExists
    case permissionDenied, resourceExhausted, failedPrecondition, aborted, outOfRange, unimplemented
    case internalError, unavailable, dataLoss, unauthenticated

    /// `NOT_FOUND`, `RESOURCE_EXHAUSTED`...
    package var name: String {
        switch self {
        case .ok: "OK"
        case .cancelled: "CANCELLED"
        case .unknown: "UNKNOWN"
        case .invalidArgument: "INVALID_ARGUMENT"
        case .deadlineExceeded: "DEADLINE_EXCEEDED"
        case .notFound: "NOT_FOUND"
        case .alreadyExists: "ALREADY_EXISTS"
        case .permissionDenied: "PERMISSION_DENIED"
        case .resourceExhausted: "RESOURCE_EXHAUSTED"
        case .failedPrecondition: "FAILED_PRECONDITION"
        case .aborted: "ABORTED"
        case .outOfRange: "OUT_OF_RANGE"
        case .unimplemented: "UNIMPLEMENTED"
        case .internalError: "INTERNAL"
        case .unavailable: "UNAVAILABLE"
        case .dataLoss: "DATA_LOSS"
        case .unauthenticated: "UNAUTHENTICATED"
        }
    }

    /// The name of a `grpc-status` value, or the number itself when gRPC defines no such code.
    package static func name(of value: String) -> String {
        Int(value).flatMap(GRPCStatusCode.init(rawValue:))?.name ?? value
    }
}

/// `grpc-message` is percent-encoded (gRPC's HTTP/2 protocol): everything outside printable
/// ASCII, and `%` itself.
package enum GRPCMessageText {
    package static func encode(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            if byte >= 0x20, byte <= 0x7E, byte != UInt8(ascii: "%") {
                result.append(Character(UnicodeScalar(byte)))
            } else {
                result += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return result
    }

    package static func decode(_ text: String) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// `grpc-timeout`: an integer of at most 8 digits and a unit (H, M, S, m, u, n).
package enum GRPCTimeout {
    package static func parse(_ value: String) -> Duration? {
        guard let unit = value.last, value.count >= 2, value.count <= 9, let amount = Int64(value.dropLast()), amount >= 0 else { return nil }
        switch unit {
        case "H": return .seconds(amount * 3600)
        case "M": return .seconds(amount * 60)
        case "S": return .seconds(amount)
        case "m": return .milliseconds(amount)
        case "u": return .microseconds(amount)
        case "n": return .nanoseconds(amount)
        default: return nil
        }
    }
}
