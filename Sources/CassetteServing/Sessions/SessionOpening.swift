import CassetteKernel
import Foundation
import NIOCore
import WellPlateCore
import WellPlateNetworking

/// The body of `POST /__cassette/sessions`: `{"cassette": NAME, "mode": "none|once|missing|all"}`,
/// `mode` optional.
package struct SessionOpening: Sendable, Equatable {
    package let cassette: String
    package let mode: RecordMode?

    private static let example = #"{"cassette": "login", "mode": "missing"}"#

    package init(body: ByteBuffer?) throws(ProxyRequestError) {
        guard let body, body.readableBytes > 0 else {
            throw Self.bad("send a JSON body such as \(Self.example)")
        }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: Data(body.readableBytesView), maximumDepth: 8)
        } catch {
            throw Self.bad("the body is not JSON (\(error.description)); send one such as \(Self.example)", code: "malformed_json")
        }
        guard let object = value.objectValue else {
            throw Self.bad("the body must be a JSON object such as \(Self.example)")
        }
        if let unknown = object.keys.first(where: { $0 != "cassette" && $0 != "mode" }) {
            throw Self.bad("unknown field \"\(unknown)\"; a session takes \"cassette\" and, optionally, \"mode\"")
        }
        guard let cassette = object["cassette"]?.stringValue?.trimmingCharacters(in: .whitespaces), !cassette.isEmpty else {
            throw Self.bad(
                object["cassette"] == nil
                    ? "the body needs \"cassette\", the name of the cassette to serve, as in \(Self.example)" : "\"cassette\" must be a non-empty string")
        }
        guard cassette.utf8.count <= 1024, !cassette.contains(where: { $0.isNewline }) else {
            throw Self.bad("\"cassette\" must be one line of at most 1024 bytes")
        }
        self.cassette = cassette
        switch object["mode"] {
        case nil, .null?:
            mode = nil
        case .string(let text)?:
            guard let mode = RecordMode(rawValue: text) else {
                throw Self.bad("unknown mode \"\(text)\"; use none, once, missing or all (or leave it out for the proxy's own)", code: "unknown_mode")
            }
            self.mode = mode
        default:
            throw Self.bad("\"mode\" must be a string: none, once, missing or all", code: "unknown_mode")
        }
    }

    private static func bad(_ message: String, code: String = "bad_request") -> ProxyRequestError {
        ProxyRequestError(status: 400, code: code, message: message)
    }
}
