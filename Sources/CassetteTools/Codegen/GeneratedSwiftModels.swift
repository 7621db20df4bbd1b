/// The generated files and which type decodes which endpoint's bodies.
import WellPlateCore
import WellPlateNetworking

public struct GeneratedSwiftModels: Sendable {
    public struct File: Sendable, Hashable {
        /// The type the file declares.
        public var typeName: String
        public var contents: String
        /// `User.swift`.
        public var name: String { typeName + ".swift" }
    }

    /// The type of one endpoint's response or request bodies.
    public struct Root: Sendable, Hashable, Comparable {
        public enum Role: String, Sendable, Hashable {
            case response, request
        }

        public var endpoint: Endpoint
        public var role: Role
        /// As written in Swift: `User`, `[User]`, `JSONValue`, `[Int]`.
        public var typeName: String
        public var recordingIDs: [Int64]

        public static func < (lhs: Root, rhs: Root) -> Bool {
            if lhs.endpoint != rhs.endpoint { return lhs.endpoint < rhs.endpoint }
            return lhs.role == .response && rhs.role == .request
        }
    }

    public var cassette: String
    /// Sorted by file name.
    public var files: [File]
    /// Sorted by endpoint, the response before the request.
    public var roots: [Root]
}
