import Foundation
import WellPlateCore

/// The one JSON dialect every client speaks: ISO-8601 dates, with or without fractional seconds.
public enum JSONCoding {
    /// A `JSONDecoder` reading dates as ISO-8601, with or without fractional seconds.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            if let date = parseISO8601(text) { return date }
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "\"\(text)\" is not an ISO-8601 date-time such as 2026-01-31T12:00:00Z"
            )
        }
        return decoder
    }

    /// A `JSONEncoder` writing dates as ISO-8601.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    /// `value` as JSON, encoded by `makeEncoder()`.
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        try makeEncoder().encode(value)
    }

    /// Decodes `data` as `T`, turning Foundation's errors into `APIError.decodingError` with a
    /// `ResponseDecodingError` that names the type and the JSON path.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        do {
            return try makeDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw APIError.decodingError(ResponseDecodingError(type: type, error: error))
        }
    }

    /// Accepts RFC 3339 date-times with and without fractional seconds.
    public static func parseISO8601(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
