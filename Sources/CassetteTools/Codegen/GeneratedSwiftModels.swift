import WellPlateCore
import WellPlateNetworking

/// The generated files and which type decodes which endpoint's bodies.
package struct GeneratedSwiftModels: Sendable {
    package struct File: Sendable, Hashable {
        /// The type the file declares.
        package var typeName: String
        package var contents: String
        /// `User.swift`.
        package var name: String { typeName + ".swift" }
    }

    /// The type of one endpoint's response or request bodies.
    package struct Root: Sendable, Hashable, Comparable {
        package typealias Role = RecordedBodies.Role

        package var endpoint: Endpoint
        package var role: Role
        /// As written in Swift: `User`, `[User]`, `JSONValue`, `[Int]`.
        package var typeName: String
        package var recordingIDs: [Int64]

        package static func < (lhs: Root, rhs: Root) -> Bool {
            if lhs.endpoint != rhs.endpoint { return lhs.endpoint < rhs.endpoint }
            return lhs.role == .response && rhs.role == .request
        }
    }

    package var cassette: String
    /// Sorted by file name.
    package var files: [File]
    /// Sorted by endpoint, the response before the request.
    package var roots: [Root]
}
