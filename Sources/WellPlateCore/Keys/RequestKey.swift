import Foundation
import HTTPTypes

/// What decides that two requests are "the same" for record and replay: a stable, human-readable
/// string such as `GET /api/users?limit=10&offset=0` or `POST /api/meals body:sha256:9f86d081884c7d65`,
/// plus the parts it was made of, kept for explaining misses. Equality and hashing use the string only.
///
/// The format and every normalization rule are documented in docs/matching.md. Redact the request
/// (`Redactor`) before computing its key: keys are stored and printed.
public struct RequestKey: Sendable, Hashable, RawRepresentable, CustomStringConvertible, Codable {
    /// Bumped whenever a rule change gives an existing request a different key. Cassettes remember
    /// the version of their keys (`CassetteInfo.keyFormat`) and are rekeyed when it differs.
    /// 3: multipart bodies keyed by parts; conditional and `matchedHeaders` headers in the key.
    /// 4: requests to `MatchingRules.graphQLPaths` keyed by their GraphQL operation.
    /// 5: GraphQL variables `{}` keyed as absent, as documented (4 keyed them as `null`).
    /// 6: `X-APOLLO-OPERATION-NAME` names a GraphQL operation its body leaves unnamed.
    public static let formatVersion = 6

    /// One `name=value` pair of a normalized query (or form body): percent-encoding normalized,
    /// `+` written as `%20`, and a name without `=` given the empty value.
    public struct QueryParameter: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The normalized parameter name.
        public let name: String
        /// The normalized value; empty when the name had no `=`.
        public let value: String

        /// A parameter from already normalized parts.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }

        /// `name=value`, as the parameter appears in a key.
        public var description: String { "\(name)=\(value)" }
    }

    /// The key text; what a cassette stores and looks up.
    public let rawValue: String
    /// The request method.
    public let method: HTTPMethod
    /// `scheme://host[:port]` when the key was made with `MatchingRules.includeHost`, otherwise `nil`.
    public let origin: String?
    /// The normalized path, starting with `/`.
    public let path: String
    /// The normalized query, sorted by name, without ignored parameters.
    public let query: [QueryParameter]
    /// `nil` for a method without a body, for an empty body, and when fingerprints are switched off.
    package let bodyFingerprint: BodyFingerprint?
    /// The canonical JSON or form text behind `bodyFingerprint`, when short enough to keep. Diagnostic
    /// only: not part of `rawValue`, equality or hashing.
    package let canonicalBody: CanonicalBody?
    /// The conditional headers and `MatchingRules.matchedHeaders` the request carried, by name.
    package let headers: [KeyedHeader]
    /// The GraphQL operation the request carried (`MatchingRules.graphQLPaths`), else `nil`.
    package let graphQL: GraphQLKeyPart?

    /// The key text (`rawValue`).
    public var description: String { rawValue }

    /// The key of a request that is about to be sent or replayed. `url` may be absolute or relative
    /// (`/path?query`); `headerFields` gives the body's Content-Type and the keyed headers.
    public init(
        method: HTTPMethod, url: URL, headerFields: HTTPFields = [:], body: Data? = nil,
        rules: MatchingRules = .default
    ) {
        self.init(method: method, target: url.absoluteString, headerFields: headerFields, body: body, rules: rules)
    }

    /// The key of a request given by its request-line target (`/path?query` or an absolute URL),
    /// as a proxy sees it; avoids building a `URL` on the hot path.
    public init(
        method: HTTPMethod, target: String, headerFields: HTTPFields = [:], body: Data? = nil,
        rules: MatchingRules = .default
    ) {
        let normalized = URLNormalizer.normalize(target: target, rules: rules)
        if !rules.graphQLPaths.isEmpty, rules.graphQLPaths.contains(normalized.path),
            let graphQL = GraphQLRequest(
                method: method, query: normalized.query, body: body, headerName: headerFields[GraphQLOperation.operationNameField])
        {
            self.init(graphQL: graphQL, normalized: normalized, headerFields: headerFields, rules: rules)
            return
        }
        var fingerprint: (fingerprint: BodyFingerprint, canonicalBody: CanonicalBody?)?
        if rules.includeBodyFingerprint, method.carriesBody {
            fingerprint = BodyFingerprint.make(body: body, contentType: headerFields[.contentType], rules: rules)
        }
        self.init(
            method: method, normalized: normalized, includeOrigin: rules.includeHost,
            bodyFingerprint: fingerprint?.fingerprint, canonicalBody: fingerprint?.canonicalBody,
            headers: KeyedHeader.make(from: headerFields, names: rules.keyedHeaderNames)
        )
    }

    /// The key of a GraphQL request: keyed as `POST` whichever method carried it (a GET and a POST
    /// of one operation are the same request), without the GET form's parameters, and with the
    /// operation's canonical identity as its body (docs/graphql.md).
    package init(graphQL: GraphQLRequest, normalized: NormalizedTarget, headerFields: HTTPFields, rules: MatchingRules) {
        var target = normalized
        target.query.removeAll { GraphQLRequest.parameterNames.contains($0.name) }
        if target.query.count != normalized.query.count {
            target.pathAndQuery = target.path + (target.query.isEmpty ? "" : "?" + target.query.map(\.description).joined(separator: "&"))
        }
        var fingerprint: BodyFingerprint?
        var canonicalBody: CanonicalBody?
        if rules.includeBodyFingerprint {
            let text = graphQL.canonicalText(rules: rules)
            fingerprint = BodyFingerprint(canonicalText: String(decoding: text, as: UTF8.self))
            if text.count <= CanonicalBody.retainedLengthLimit {
                canonicalBody = CanonicalBody(kind: .graphql, text: String(decoding: text, as: UTF8.self))
            }
        }
        self.init(
            method: .post, normalized: target, includeOrigin: rules.includeHost, graphQL: graphQL.keyPart,
            bodyFingerprint: fingerprint, canonicalBody: canonicalBody,
            headers: KeyedHeader.make(from: headerFields, names: rules.keyedHeaderNames)
        )
    }

    /// Parses stored key text; `nil` when it is not a key. `init(parsing:canonicalBody:)` says why.
    public init?(rawValue: String) {
        guard let key = try? RequestKey(parsing: rawValue) else { return nil }
        self = key
    }

    /// Parses key text back into its parts, for explaining misses against stored keys. The target is
    /// normalized again, so a hand-typed key (`get /a?b=1&a=2`) becomes canonical; a stored key comes
    /// back unchanged. Pass the `canonicalBody` stored with the key to get body-level explanations.
    package init(parsing text: String, canonicalBody: CanonicalBody? = nil) throws(RequestKeyError) {
        var parts = text.split(separator: " ", omittingEmptySubsequences: false)
        var headers: [KeyedHeader] = []
        while parts.count > 2, let last = parts.last, last.hasPrefix(KeyedHeader.prefix) {
            guard let header = KeyedHeader(parsing: last) else {
                throw RequestKeyError(key: text, problem: "\(last) is not a header part (h:name=value)")
            }
            headers.insert(header, at: 0)
            parts.removeLast()
        }
        var graphQL: GraphQLKeyPart?
        if parts.count > 2, parts[2].hasPrefix(GraphQLKeyPart.prefix) {
            guard let part = GraphQLKeyPart(parsing: parts[2]) else {
                throw RequestKeyError(key: text, problem: "\(parts[2]) is not an operation part (gql:type:name)")
            }
            graphQL = part
            parts.remove(at: 2)
        }
        guard parts.count == 2 || parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw RequestKeyError(key: text, problem: "expected a method, one space and a target")
        }
        guard let method = HTTPMethod(token: String(parts[0])) else {
            throw RequestKeyError(
                key: text,
                problem: "unknown method \(parts[0]) (use one of \(HTTPMethod.allCases.map(\.rawValue).joined(separator: ", ")))"
            )
        }
        let target = String(parts[1])
        let hasOrigin = !target.hasPrefix("/")
        let normalized = URLNormalizer.normalize(target: target)
        guard !hasOrigin || normalized.origin != nil else {
            throw RequestKeyError(key: text, problem: "target \(target) is neither a path starting with / nor scheme://host/path")
        }
        var fingerprint: BodyFingerprint?
        if parts.count == 3 {
            let prefix = "body:\(BodyFingerprint.algorithm):"
            guard parts[2].hasPrefix(prefix), let parsed = BodyFingerprint(hex: String(parts[2].dropFirst(prefix.count))) else {
                throw RequestKeyError(
                    key: text, problem: "\(parts[2]) is not a body fingerprint (\(prefix) and \(BodyFingerprint.hexLength) hex digits)"
                )
            }
            fingerprint = parsed
        }
        if let canonicalBody {
            guard let fingerprint, BodyFingerprint(canonicalText: canonicalBody.text) == fingerprint else {
                throw RequestKeyError(
                    key: text, problem: "the canonical body given with the key does not hash to its body fingerprint"
                )
            }
        }
        self.init(
            method: method, normalized: normalized, includeOrigin: hasOrigin, graphQL: graphQL,
            bodyFingerprint: fingerprint, canonicalBody: canonicalBody, headers: headers
        )
    }

    private init(
        method: HTTPMethod, normalized: NormalizedTarget, includeOrigin: Bool, graphQL: GraphQLKeyPart? = nil,
        bodyFingerprint: BodyFingerprint?, canonicalBody: CanonicalBody?, headers: [KeyedHeader]
    ) {
        self.graphQL = graphQL
        self.method = method
        origin = includeOrigin ? normalized.origin : nil
        path = normalized.path
        query = normalized.query
        self.bodyFingerprint = bodyFingerprint
        self.canonicalBody = bodyFingerprint == nil ? nil : canonicalBody
        var text = method.rawValue
        text += " "
        if let origin { text += origin }
        text += normalized.pathAndQuery
        if let graphQL { text += " \(graphQL)" }
        if let bodyFingerprint { text += " body:\(bodyFingerprint)" }
        self.headers = headers
        for header in headers { text += " \(header)" }
        rawValue = text
    }

    /// Whether both keys have the same text.
    public static func == (lhs: RequestKey, rhs: RequestKey) -> Bool {
        lhs.rawValue == rhs.rawValue
    }

    /// Hashes the key text.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rawValue)
    }

    /// Encoded as the key text alone.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(parsing: text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    /// Encodes the key text alone.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
