import Foundation
import HTTPTypes
import WellPlateCore

/// How every client turns a response into a value or an error, shared so that the live, replay
/// and mock clients cannot drift apart.
public enum ResponseDecoding {
    /// Decodes a 2xx body. `EmptyResponse` accepts anything, including no body; other types need one.
    public static func decode<T: Decodable>(_ type: T.Type, from response: TransportResponse) throws -> T {
        try decode(type, from: response.body, statusCode: response.statusCode)
    }

    /// Decodes `body` as `T` with `JSONCoding`; throws `APIError.noData` for a 204 or a blank body (unless `T` is `EmptyResponse`)
    /// and `APIError.decodingError` when the body does not fit `T`.
    public static func decode<T: Decodable>(_ type: T.Type, from body: Data, statusCode: Int = 200) throws -> T {
        if type == EmptyResponse.self, let empty = EmptyResponse() as? T {
            return empty
        }
        if statusCode == 204 || body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            throw APIError.noData
        }
        do {
            return try JSONCoding.decode(type, from: body)
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError.decodingError(
                ResponseDecodingError(typeName: String(reflecting: type), path: "$", reason: "the body is not valid JSON (\(error.localizedDescription))"))
        }
    }

    /// The server's own explanation in an error body: `message`, `error_description`, `detail`,
    /// `error` (a string or an object with a message), or a short plain-text body.
    public static func errorMessage(in response: TransportResponse) -> String? {
        errorMessage(body: response.body, contentType: response.headerFields[.contentType])
    }

    /// `errorMessage(in:)` for a body and its `Content-Type`; `nil` when the body explains nothing.
    public static func errorMessage(body: Data, contentType: String?) -> String? {
        guard !body.isEmpty else { return nil }
        if let value = try? JSONValue(parsing: body), case .object(let object) = value {
            for key in ["message", "error_description", "detail", "title", "error"] {
                if let text = object[key]?.stringValue, !text.isEmpty { return text }
            }
            return object["error"]?["message"]?.stringValue
        }
        let type = contentType?.lowercased() ?? ""
        guard type.isEmpty || type.hasPrefix("text/"), let text = String(data: body, encoding: .utf8) else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        return trimmed.count > 200 ? String(trimmed.prefix(200)) + "…" : trimmed
    }
}
