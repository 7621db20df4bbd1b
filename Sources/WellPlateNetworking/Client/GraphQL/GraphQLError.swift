import Foundation

/// One entry of a GraphQL answer's `errors` array: what the server could not do.
public struct GraphQLError: Sendable, Hashable, Decodable, CustomStringConvertible {
    /// The server's message.
    public let message: String
    /// Where in `data` the error happened (`["user", "email"]`, list indices as decimal text);
    /// `nil` for an error of the whole operation (a syntax or validation error).
    public let path: [String]?
    /// `extensions.code` (`PERSISTED_QUERY_NOT_FOUND`, `BAD_USER_INPUT`), when the server sends one.
    public let code: String?

    /// An error from its parts.
    public init(message: String, path: [String]? = nil, code: String? = nil) {
        self.message = message
        self.path = path
        self.code = code
    }

    private enum CodingKeys: String, CodingKey {
        case message, path, extensions
    }

    private enum ExtensionKeys: String, CodingKey {
        case code
    }

    /// A path element is a field name or a list index; both are kept as text.
    private struct PathElement: Decodable {
        let text: String

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let index = try? container.decode(Int.self) {
                text = String(index)
            } else {
                text = try container.decode(String.self)
            }
        }
    }

    /// Reads an `errors` entry; members other than `message`, `path` and `extensions.code` are ignored.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        message = try container.decode(String.self, forKey: .message)
        path = try container.decodeIfPresent([PathElement].self, forKey: .path)?.map(\.text)
        // A server's extensions are its own: a `code` that is not a string is no code.
        if let extensions = try? container.nestedContainer(keyedBy: ExtensionKeys.self, forKey: .extensions) {
            code = try? extensions.decodeIfPresent(String.self, forKey: .code)
        } else {
            code = nil
        }
    }

    /// `message`, with the path when there is one: `the broken field always fails (at broken)`.
    public var description: String {
        guard let path, !path.isEmpty else { return message }
        return "\(message) (at \(path.joined(separator: ".")))"
    }
}
