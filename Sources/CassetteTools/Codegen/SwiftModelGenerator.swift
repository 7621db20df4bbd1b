import Foundation
import WellPlateCore
import WellPlateNetworking

/// Writes Codable Swift types for every recorded JSON endpoint: `cassette codegen swift`.
///
/// Each endpoint's response type comes from the schema of ALL its 2xx JSON responses and its
/// request type from all its JSON request bodies (`RecordedOperations`), so a field is optional
/// because some recording lacked it or held `null`, not because one sample did. Types follow the
/// design documents' naming (`EndpointModelNames`) and mapping (`SwiftModelBuilder`); structs of
/// the same shape are generated once, whichever endpoints use them. The output depends only on
/// the recordings: same store, same bytes. A GraphQL operation (`RecordedOperations` built with
/// `splitsGraphQLOperations`) gets its `data` and variables modelled and a namespace naming them
/// as Apollo does: `GetUserQuery.Data`, `GetUserQuery.Variables`.
package struct SwiftModelGenerator: Sendable {
    /// The first bytes of every generated file: how a file is known to be generated.
    package static let marker = SwiftModelRenderer.marker

    /// Named in the header comments.
    package var cassette: String

    package init(cassette: String) {
        self.cassette = cassette
    }

    package func generate(_ operations: RecordedOperations) -> GeneratedSwiftModels {
        var bodies: [RootBody] = []
        for endpoint in operations.endpoints {
            guard let operation = operations[endpoint] else { continue }
            let names = EndpointModelNames(endpoint)
            let response = operation.successSchema
            if !response.isEmpty {
                let isArray = response.nonNullTypes == [.array]
                bodies.append(
                    RootBody(
                        root: GeneratedSwiftModels.Root(endpoint: endpoint, role: .response, typeName: "", recordingIDs: operation.successRecordingIDs),
                        schema: response, hint: isArray ? names.responseItem : names.response,
                        resource: names.hasAction ? nil : names.responseItem
                    ))
            }
            let request = operation.requestSchema
            if !request.isEmpty {
                let isArray = request.nonNullTypes == [.array]
                bodies.append(
                    RootBody(
                        root: GeneratedSwiftModels.Root(endpoint: endpoint, role: .request, typeName: "", recordingIDs: operation.requestRecordingIDs),
                        schema: request, hint: isArray ? SwiftNaming.typeName(from: names.request + " item") : names.request, resource: nil
                    ))
            }
        }
        Self.mergeResources(&bodies)

        var builder = SwiftModelBuilder()
        var roots: [(GeneratedSwiftModels.Root, SwiftModelType, String, String?)] = []
        for body in bodies {
            let source = "\(body.root.endpoint) \(body.root.role.rawValue)"
            let type = builder.rootType(for: body.schema, source: source, ids: Set(body.root.recordingIDs))
            roots.append((body.root, type, body.hint, EndpointModelNames(body.root.endpoint).parent))
        }

        var naming = SwiftModelNaming(structs: builder.structs)
        for (_, type, hint, parent) in roots.sorted(by: { Self.namingRank($0.0) < Self.namingRank($1.0) }) {
            naming.name(type, hint: hint, parent: parent)
        }
        let renderer = SwiftModelRenderer(cassette: cassette, names: naming.names)
        var files: [GeneratedSwiftModels.File] = builder.structs.values.compactMap { model in
            guard let name = naming.names[model.shape] else { return nil }
            return GeneratedSwiftModels.File(typeName: name, contents: renderer.render(model, name: name))
        }
        if builder.usesJSONValue {
            files.append(GeneratedSwiftModels.File(typeName: "JSONValue", contents: renderer.renderJSONValue()))
        }
        let namedRoots = roots.map { root, type, _, _ in
            var root = root
            root.typeName = type.spelled(naming.names)
            return root
        }
        let taken = Set(files.map(\.typeName))
        for (endpoint, members) in Dictionary(grouping: namedRoots, by: \.endpoint) {
            guard let namespace = EndpointModelNames(endpoint).operationNamespace, !taken.contains(namespace) else { continue }
            let data = members.first { $0.role == .response }?.typeName
            let variables = members.first { $0.role == .request }?.typeName
            files.append(
                GeneratedSwiftModels.File(
                    typeName: namespace, contents: renderer.renderOperation(endpoint, namespace: namespace, data: data, variables: variables)))
        }
        files.sort { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        return GeneratedSwiftModels(cassette: cassette, files: files, roots: namedRoots.sorted())
    }

    /// Who names a shared shape first: a GraphQL operation's roots, then a resource's own GET item endpoint (`User` from
    /// `GET /api/users/{id}`), then other GET answers, other responses, and requests last.
    private static func namingRank(_ root: GeneratedSwiftModels.Root) -> (Int, Endpoint) {
        // A GraphQL operation's data and variables first: their namespace (`GetUserQuery.Data`)
        // needs the names made for them, which no other shape has a claim to.
        if root.endpoint.operation != nil { return (-1, root.endpoint) }
        let isItem = root.endpoint.pattern.hasSuffix("}")
        let rank =
            switch (root.role, root.endpoint.method) {
            case (.response, .get): isItem ? 0 : 1
            case (.response, _): 2
            case (.request, _): 3
            }
        return (rank, root.endpoint)
    }
}
