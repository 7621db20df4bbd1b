/// A request body that must be a JSON object, with accessors that name the offending field.
struct JSONObjectBody {
    private let members: [String: JSONValue]

    init(_ request: Request) throws(APIFailure) {
        guard !request.body.isEmpty else {
            throw .badRequest("Request body is empty; send a JSON object")
        }
        guard let value = JSONValue.parse(request.body) else {
            throw .badRequest("Request body is not valid JSON; send a JSON object")
        }
        guard case .object(let members) = value else {
            throw .badRequest("Request body must be a JSON object")
        }
        self.members = members
    }

    func requiredString(_ name: String) throws(APIFailure) -> String {
        guard let value = try optionalString(name) else {
            throw .badRequest("Field \"\(name)\" is required and must be a non-empty string")
        }
        return value
    }

    /// `nil` when absent or `null`; a present value must be a non-empty string.
    func optionalString(_ name: String) throws(APIFailure) -> String? {
        switch members[name] {
        case nil, .null?:
            return nil
        case .string(let value)?:
            guard !value.trimmingWhitespace.isEmpty else {
                throw .badRequest("Field \"\(name)\" must not be empty")
            }
            return value
        default:
            throw .badRequest("Field \"\(name)\" must be a string")
        }
    }

    /// A number greater than zero, returned with its JSON spelling so it can be echoed as sent.
    func positiveNumber(_ name: String) throws(APIFailure) -> (value: Double, json: JSONValue) {
        let failure = APIFailure.badRequest("Field \"\(name)\" is required and must be a number greater than 0")
        switch members[name] {
        case .integer(let value)? where value > 0:
            return (Double(value), .integer(value))
        case .number(let value)? where value > 0 && value.isFinite:
            return (value, .number(value))
        default:
            throw failure
        }
    }
}
