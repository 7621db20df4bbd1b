import Foundation

/// A request to a configured GraphQL path that carries operations: a POST whose JSON body holds
/// `query` and/or `extensions.persistedQuery` (or an array of such objects: a batch), or a GET
/// with `query`/`extensions` parameters (Apollo's GET form, JSON in query parameters).
package struct GraphQLRequest: Sendable, Equatable {
    /// One operation, or the operations of a batch in order.
    package let operations: [GraphQLOperation]
    package let isBatch: Bool

    /// The operations of a request to a GraphQL path: the GET form's parameters, or a POST's body.
    /// `headerName`: the request's `X-APOLLO-OPERATION-NAME`, which names an operation its body
    /// or parameters leave unnamed (`GraphQLOperation.init(_:headerName:)`).
    package init?(method: HTTPMethod, query: [RequestKey.QueryParameter], body: Data?, headerName: String? = nil) {
        if method == .get {
            self.init(query: query, headerName: headerName)
        } else if method.carriesBody, let body {
            self.init(body: body, headerName: headerName)
        } else {
            return nil
        }
    }

    /// The one operation a request carries, read from a URL (Apollo's GET form) or a body; `nil`
    /// for no operation or a batch. For what reads recordings and mocked requests, not for keys.
    /// `headerName`: `X-APOLLO-OPERATION-NAME`, naming a hash-only operation.
    package static func singleOperation(method: HTTPMethod, url: URL, body: Data?, headerName: String? = nil) -> GraphQLOperation? {
        if method == .get {
            var object = JSONObject()
            // Form encoding, as clients write the GET form: `+` is a space (URLComponents keeps it).
            for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQueryItems ?? []
            where parameterNames.contains(item.name) {
                let value = (item.value ?? "").replacingOccurrences(of: "+", with: "%20")
                object[item.name] = .string(value.removingPercentEncoding ?? value)
            }
            return GraphQLOperation(object, headerName: headerName)
        }
        guard let request = body.flatMap({ GraphQLRequest(body: $0, headerName: headerName) }), !request.isBatch else { return nil }
        return request.operations.first
    }

    /// The parameter names of the GET form, which leave the key's query: they are the operation.
    package static let parameterNames: Set<String> = ["query", "operationName", "variables", "extensions"]

    /// The operations of a POST body, or `nil` when it is not a GraphQL request body.
    /// `headerName`: `X-APOLLO-OPERATION-NAME`, naming a hash-only operation (`GraphQLOperation`).
    package init?(body: Data, headerName: String? = nil) {
        guard let first = body.first(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }),
            first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
            let value = try? JSONValue(parsing: body)
        else { return nil }
        if let object = value.objectValue, let operation = GraphQLOperation(object, headerName: headerName) {
            self.init(operations: [operation], isBatch: false)
        } else if let elements = value.arrayValue, !elements.isEmpty {
            let operations = elements.compactMap { $0.objectValue.flatMap { GraphQLOperation($0) } }
            guard operations.count == elements.count else { return nil }
            self.init(operations: operations, isBatch: true)
        } else {
            return nil
        }
    }

    /// The operation of a GET's normalized query, or `nil` when it has neither `query` nor `extensions`.
    package init?(query: [RequestKey.QueryParameter], headerName: String? = nil) {
        var object = JSONObject()
        for parameter in query where Self.parameterNames.contains(parameter.name) {
            let value = String(decoding: PercentEncoding.decode(ArraySlice(parameter.value.utf8)), as: UTF8.self)
            object[parameter.name] = .string(value)
        }
        guard let operation = GraphQLOperation(object, headerName: headerName) else { return nil }
        self.init(operations: [operation], isBatch: false)
    }

    package init(operations: [GraphQLOperation], isBatch: Bool) {
        self.operations = operations
        self.isBatch = isBatch
    }

    /// The part of the key text that names the operation: `gql:query:GetUser`, `gql:persisted:GetUser`
    /// (hash only), `gql:batch:GetUser+ListPosts`.
    package var keyPart: GraphQLKeyPart {
        if isBatch { return GraphQLKeyPart(kind: "batch", name: operations.map(\.name).joined(separator: "+")) }
        let operation = operations[0]
        return GraphQLKeyPart(kind: operation.type?.rawValue ?? "persisted", name: operation.name)
    }

    /// The request a client sends once the server knows its documents: each operation by its hash.
    package var hashOnly: GraphQLRequest? {
        let operations = operations.compactMap(\.hashOnly)
        guard operations.count == self.operations.count else { return nil }
        return GraphQLRequest(operations: operations, isBatch: isBatch)
    }

    /// What the body fingerprint hashes, in canonical JSON: per operation the document's hash (or
    /// the persisted hash) and the variables; an array for a batch.
    func canonicalText(rules: MatchingRules) -> [UInt8] {
        let ignored = GraphQLIgnoredFields(rules.ignoredBodyFields)
        let identities = operations.map { $0.identity(ignoring: ignored) }
        return CanonicalJSON.canonicalText(of: isBatch ? .array(identities) : identities[0], ignoring: ignored.names)
    }
}

/// The operation named in a GraphQL request's key: `gql:<kind>:<name>`, where kind is the
/// operation type, `persisted` (hash only) or `batch`.
package struct GraphQLKeyPart: Sendable, Hashable, CustomStringConvertible {
    package static let prefix = "gql:"
    /// ` gql:` as bytes: where a key's operation part starts.
    private static let keyMarker = Array(" \(prefix)".utf8)
    package let kind: String
    package let name: String

    package init(kind: String, name: String) {
        self.kind = kind
        self.name = name
    }

    /// Reads `gql:query:GetUser`; `nil` for anything else.
    package init?(parsing text: Substring) {
        guard text.hasPrefix(Self.prefix) else { return nil }
        let parts = text.dropFirst(Self.prefix.count).split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        self.init(kind: String(parts[0]), name: String(parts[1]))
    }

    /// The operation named in key text (`POST /graphql gql:query:GetUser body:…`), if any.
    package init?(inKey key: String) {
        // Asked for every request line the proxy logs, most of them not GraphQL: a scan of the
        // key's bytes for ` gql:`, not Foundation's `range(of:)`, which bridges the string.
        let utf8 = key.utf8
        let marker = Self.keyMarker
        var start: String.Index?
        var index = utf8.startIndex
        while index != utf8.endIndex, start == nil {
            if utf8[index] == marker[0], utf8[index...].starts(with: marker) { start = index }
            index = utf8.index(after: index)
        }
        guard let start else { return nil }
        let part = key[key.index(after: start)...].prefix { $0 != " " }
        self.init(parsing: part)
    }

    /// How a request log line names a GraphQL request: its path and operation
    /// (`/graphql query GetUser`), without the GET form's long parameters; `target` unchanged when
    /// `key` names no operation.
    package static func loggedTarget(_ target: String, key: String?) -> String {
        guard let key, let operation = GraphQLKeyPart(inKey: key) else { return target }
        return "\(target.prefix { $0 != "?" }) \(operation.label)"
    }

    package var description: String { "\(Self.prefix)\(kind):\(name)" }

    /// `query GetUser`, as listings name the operation.
    package var label: String { "\(kind) \(name)" }
}
