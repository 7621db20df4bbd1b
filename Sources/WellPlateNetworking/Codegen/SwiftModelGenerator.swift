import Foundation

/// Writes Codable Swift types for every recorded JSON endpoint: `cassette codegen swift`.
///
/// Each endpoint's response type comes from the schema of ALL its 2xx JSON responses and its
/// request type from all its JSON request bodies (`RecordedOperations`), so a field is optional
/// because some recording lacked it or held `null`, not because one sample did. Types follow the
/// design documents' naming (`EndpointModelNames`) and mapping (`SwiftModelBuilder`); structs of
/// the same shape are generated once, whichever endpoints use them. The output depends only on
/// the recordings: same store, same bytes.
public struct SwiftModelGenerator: Sendable {
    /// The first bytes of every generated file: how a file is known to be generated.
    public static let marker = SwiftModelRenderer.marker

    /// Named in the header comments.
    public var cassette: String

    public init(cassette: String) {
        self.cassette = cassette
    }

    public func generate(_ operations: RecordedOperations) -> GeneratedSwiftModels {
        var builder = SwiftModelBuilder()
        var roots: [(GeneratedSwiftModels.Root, SwiftModelType, String)] = []
        for endpoint in operations.endpoints {
            guard let operation = operations[endpoint] else { continue }
            let names = EndpointModelNames(endpoint)
            let schema = operation.successSchema
            guard !schema.isEmpty else { continue }
            let ids = operation.successRecordingIDs
            let type = builder.rootType(for: schema, source: "\(endpoint) response", ids: Set(ids))
            let hint = schema.nonNullTypes == [.array] ? names.responseItem : names.response
            roots.append((GeneratedSwiftModels.Root(endpoint: endpoint, role: .response, typeName: "", recordingIDs: ids), type, hint))
        }
        for endpoint in operations.endpoints {
            guard let operation = operations[endpoint] else { continue }
            let schema = operation.requestSchema
            guard !schema.isEmpty else { continue }
            let names = EndpointModelNames(endpoint)
            let ids = operation.requestRecordingIDs
            let type = builder.rootType(for: schema, source: "\(endpoint) request", ids: Set(ids))
            let hint = schema.nonNullTypes == [.array] ? SwiftNaming.typeName(from: names.request + " item") : names.request
            roots.append((GeneratedSwiftModels.Root(endpoint: endpoint, role: .request, typeName: "", recordingIDs: ids), type, hint))
        }

        var naming = SwiftModelNaming(structs: builder.structs)
        for (_, type, hint) in roots.sorted(by: { Self.namingRank($0.0) < Self.namingRank($1.0) }) {
            naming.name(type, hint: hint, parent: nil)
        }
        let renderer = SwiftModelRenderer(cassette: cassette, names: naming.names)
        var files: [GeneratedSwiftModels.File] = builder.structs.values.compactMap { model in
            guard let name = naming.names[model.shape] else { return nil }
            return GeneratedSwiftModels.File(typeName: name, contents: renderer.render(model, name: name))
        }
        if builder.usesJSONValue {
            files.append(GeneratedSwiftModels.File(typeName: "JSONValue", contents: renderer.renderJSONValue()))
        }
        files.sort { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        let namedRoots = roots.map { root, type, _ in
            var root = root
            root.typeName = type.spelled(naming.names)
            return root
        }
        return GeneratedSwiftModels(cassette: cassette, files: files, roots: namedRoots.sorted())
    }

    /// Who names a shared shape first: a resource's own GET item endpoint (`User` from
    /// `GET /api/users/{id}`), then other GET answers, other responses, and requests last.
    private static func namingRank(_ root: GeneratedSwiftModels.Root) -> (Int, Endpoint) {
        let isItem = root.endpoint.pattern.hasSuffix("}")
        let rank = switch (root.role, root.endpoint.method) {
        case (.response, .get): isItem ? 0 : 1
        case (.response, _): 2
        case (.request, _): 3
        }
        return (rank, root.endpoint)
    }
}

/// The generated files and which type decodes which endpoint's bodies.
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
