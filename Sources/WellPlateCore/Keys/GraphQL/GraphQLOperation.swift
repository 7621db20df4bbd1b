import Crypto
import Foundation
import HTTPTypes

/// One GraphQL operation as a request carries it (a POST body, one element of a batch, or the
/// parameters of a GET): what keys it and what names it.
package struct GraphQLOperation: Sendable, Equatable {
    /// `nil` when only a persisted-query hash was sent: the type is in a document the request lacks.
    package let type: GraphQLOperationType?
    /// `operationName`, else the document's single (or first) operation's name, else a stable
    /// name from the hash of the normalized document (`anonymous_1a2b3c4d`).
    package let name: String
    /// `nil` for a hash-only request (automatic persisted queries).
    package let document: GraphQLDocument?
    /// The SHA-256 (64 lower-case hex digits) of the document text exactly as sent, which is what
    /// automatic persisted queries send instead of it; or the hash a hash-only request names.
    package let persistedHash: String?
    /// The variables as sent, `nil` when absent, `null` or `{}` (all the same to a server).
    package let variables: JSONValue?

    /// The header Apollo clients send with every operation, its name as the value.
    package static let operationNameHeader = "X-APOLLO-OPERATION-NAME"
    /// `operationNameHeader` as a field name, for reading it from a request's fields.
    package static let operationNameField = HTTPField.Name(operationNameHeader)!

    /// The operation in `object` (`query`, `operationName`, `variables`, `extensions`), or `nil`
    /// when it carries neither a document nor a persisted-query hash. `headerName` (the value of
    /// `X-APOLLO-OPERATION-NAME`, which Apollo clients send with every operation) names the
    /// operation when the body does not: a hash-only request, or a document sent without
    /// `operationName` whose operation is anonymous (it also picks among a document's operations).
    /// When both name it and disagree, the body wins: it is what the server executes.
    package init?(_ object: JSONObject, headerName: String? = nil) {
        let documentText = object["query"]?.stringValue
        let extensions = Self.object(object["extensions"])
        let sentHash = extensions?["persistedQuery"]?.objectValue?["sha256Hash"]?.stringValue?.lowercased()
        guard documentText != nil || sentHash != nil else { return nil }
        let document = documentText.map(GraphQLDocument.init)
        let operationName = object["operationName"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        let headerName = headerName.flatMap { $0.isEmpty ? nil : $0 }
        let wanted = operationName ?? headerName
        let chosen = document.flatMap { document in
            document.operations.first { $0.name != nil && $0.name == wanted } ?? document.operations.first
        }
        self.document = document
        persistedHash = documentText.map { SHA256.hash(data: Array($0.utf8)).hex } ?? sentHash
        type = document == nil ? nil : (chosen?.type ?? .query)
        if let name = operationName ?? chosen?.name ?? headerName {
            self.name = Self.keySafe(name)
        } else {
            let basis = document?.normalized ?? sentHash ?? ""
            self.name = "anonymous_" + SHA256.hash(data: Array(basis.utf8)).hexPrefix(8)
        }
        variables = Self.variables(object["variables"])
    }

    /// The same operation as a client sends it once the server knows its document: the hash alone.
    package var hashOnly: GraphQLOperation? {
        guard document != nil, let persistedHash else { return nil }
        return GraphQLOperation(type: nil, name: name, document: nil, persistedHash: persistedHash, variables: variables)
    }

    private init(type: GraphQLOperationType?, name: String, document: GraphQLDocument?, persistedHash: String?, variables: JSONValue?) {
        self.type = type
        self.name = name
        self.document = document
        self.persistedHash = persistedHash
        self.variables = variables
    }

    /// `query GetUser`; `persisted GetUser` for a hash-only request.
    package var label: String { "\(type?.rawValue ?? "persisted") \(name)" }

    /// The JSON value keying compares: the normalized document's hash (or the persisted hash when
    /// no document was sent) and the variables, leaving out ignored fields; the name and type are
    /// in the key text.
    func identity(ignoring ignored: GraphQLIgnoredFields) -> JSONValue {
        var members: [(String, JSONValue)] = []
        if let document {
            members.append(("document", .string("sha256:" + SHA256.hash(data: Array(document.normalized.utf8)).hex)))
        } else if let persistedHash {
            members.append(("persistedQuery", .string(persistedHash)))
        }
        if let variables = variables.map(ignored.removing(from:)) { members.append(("variables", variables)) }
        return .object(JSONObject(members))
    }

    /// The variables as a key compares them: without the members `rules` ignore (a path below
    /// `$.variables`, or a plain name at any depth), keys sorted and numbers by value; `nil` when
    /// none are sent or none are left. What tells one variables variant of an operation from
    /// another (`export --fixtures` writes a fixture per variant).
    package func keyedVariables(rules: MatchingRules) -> JSONValue? {
        let ignored = GraphQLIgnoredFields(rules.ignoredBodyFields)
        guard let variables = variables.map(ignored.removing(from:)) else { return nil }
        let text = CanonicalJSON.canonicalText(of: variables, ignoring: ignored.names)
        guard let value = try? JSONValue(parsing: Data(text)), value.objectValue?.members.isEmpty != true, !value.isNull else { return nil }
        return value
    }

    /// GET sends `variables` and `extensions` as JSON text in parameters; a POST body as JSON.
    private static func object(_ value: JSONValue?) -> JSONObject? {
        if let object = value?.objectValue { return object }
        guard let text = value?.stringValue, let parsed = try? JSONValue(parsing: text) else { return nil }
        return parsed.objectValue
    }

    private static func variables(_ value: JSONValue?) -> JSONValue? {
        guard let value, !value.isNull else { return nil }
        // `Optional.none`, spelled out: a bare `nil` here is `JSONValue.null` (JSONValue is
        // ExpressibleByNilLiteral), which key format 4 fell into, keying `{}` apart from absent.
        let absent: JSONValue? = .none
        if let object = value.objectValue { return object.members.isEmpty ? absent : value }
        if let text = value.stringValue, let parsed = try? JSONValue(parsing: text) {
            return parsed.isNull || parsed.objectValue?.members.isEmpty == true ? absent : parsed
        }
        return value
    }

    /// A name as GraphQL spells names; anything else a client put in `operationName` becomes `_`,
    /// so the key text stays one space-free part.
    private static func keySafe(_ name: String) -> String {
        String(
            String.UnicodeScalarView(
                name.unicodeScalars.map { scalar in
                    scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_") ? scalar : "_"
                }))
    }
}
