import Foundation
import WellPlateCore

/// What a `MockAPIClient` answers instead of a fixture.
public enum MockStub: Sendable {
    /// A response handled exactly as the live client handles one from the network: a 2xx body is
    /// decoded, any other status throws `APIError.serverError` with the body's message.
    case response(TransportResponse)
    /// Thrown as it is.
    case error(any Error)

    /// A JSON body with `statusCode`.
    public static func json(_ body: Data, statusCode: Int = 200) -> MockStub {
        var response = TransportResponse(statusCode: statusCode, body: body)
        if !body.isEmpty { response.headerFields[.contentType] = "application/json" }
        return .response(response)
    }

    /// `value` encoded with `JSONCoding`, with `statusCode`.
    public static func value<T: Encodable>(_ value: T, statusCode: Int = 200) throws -> MockStub {
        json(try JSONCoding.encode(value), statusCode: statusCode)
    }

    /// A failing status with `{"message": ...}` as its body, or no body.
    public static func status(_ statusCode: Int, message: String? = nil) -> MockStub {
        guard let message else { return json(Data(), statusCode: statusCode) }
        let body: JSONValue = ["message": .string(message)]
        return json(body.jsonData(), statusCode: statusCode)
    }

    /// Produces `T` as the live client would from the same response.
    func answer<T: Decodable>(_ type: T.Type) throws -> T {
        switch self {
        case .error(let error):
            throw error
        case .response(let response):
            guard response.isSuccess else {
                throw APIError.serverError(statusCode: response.statusCode, message: ResponseDecoding.errorMessage(in: response))
            }
            return try ResponseDecoding.decode(type, from: response)
        }
    }
}
