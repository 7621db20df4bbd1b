/// The options that decide when two requests are "the same" for record and replay.
/// Every rule is described in docs/matching.md.
public struct MatchingRules: Sendable, Equatable, Codable {
    /// The default rules: nothing ignored, body fingerprint on, host left out.
    public static let `default` = MatchingRules()

    /// Cache-busters and per-request noise that many APIs append; pass them (or a subset) as
    /// `ignoredQueryParameters`. Not applied by default: `t` or `ts` can be meaningful to some APIs.
    public static let commonCacheBusters: Set<String> = [
        "_", "cb", "t", "ts", "timestamp", "nonce", "cachebuster", "cache_buster", "rnd", "rand",
    ]

    /// Query parameter names left out of the key (cache-busters, timestamps, nonces). Compared with
    /// the percent-decoded parameter name, ignoring case; stored lower-cased.
    public var ignoredQueryParameters: Set<String> {
        didSet { ignoredQueryParameters = Self.lowercased(ignoredQueryParameters) }
    }

    /// JSON object keys (at any depth) and form body field names left out of the body fingerprint,
    /// for client-generated noise such as `client_timestamp` or `request_id`. Compared ignoring case;
    /// stored lower-cased.
    public var ignoredBodyFields: Set<String> {
        didSet { ignoredBodyFields = Self.lowercased(ignoredBodyFields) }
    }

    /// Whether POST, PUT, PATCH and DELETE bodies are part of the key. When off, requests that differ
    /// only in their body share a key.
    public var includeBodyFingerprint: Bool

    /// Whether the key starts with `scheme://host[:port]`. Off by default because a cassette records
    /// which upstream it came from, and the same cassette should replay against a staging host.
    public var includeHost: Bool

    /// Request header names whose values are part of the key, for APIs that answer differently
    /// per `Accept` or `Accept-Language`. Compared ignoring case; stored lower-cased.
    /// `If-None-Match` and `If-Modified-Since` are always part of the key (see `KeyedHeader`).
    public var matchedHeaders: Set<String> {
        didSet { matchedHeaders = Self.lowercased(matchedHeaders) }
    }

    /// The paths (normalized, as in a key) where requests carrying a GraphQL operation are keyed
    /// by the operation and its canonical variables rather than by their raw body (docs/graphql.md).
    public var graphQLPaths: Set<String>

    /// Where GraphQL operations are recognized unless configured otherwise.
    public static let defaultGraphQLPaths: Set<String> = ["/graphql"]

    /// Rules that ignore the given query parameters and body fields and key on the given headers (names compared ignoring case);
    /// the defaults match `MatchingRules.default`.
    public init(
        ignoredQueryParameters: some Sequence<String> = [String](),
        ignoredBodyFields: some Sequence<String> = [String](),
        includeBodyFingerprint: Bool = true,
        includeHost: Bool = false,
        matchedHeaders: some Sequence<String> = [String](),
        graphQLPaths: some Sequence<String> = MatchingRules.defaultGraphQLPaths
    ) {
        self.graphQLPaths = Set(graphQLPaths)
        self.ignoredQueryParameters = Self.lowercased(ignoredQueryParameters)
        self.ignoredBodyFields = Self.lowercased(ignoredBodyFields)
        self.includeBodyFingerprint = includeBodyFingerprint
        self.includeHost = includeHost
        self.matchedHeaders = Self.lowercased(matchedHeaders)
    }

    /// Every header name a key takes a value from, sorted: the conditional ones and `matchedHeaders`.
    public var keyedHeaderNames: [String] {
        KeyedHeader.conditionalNames.union(matchedHeaders).sorted()
    }

    private enum CodingKeys: String, CodingKey {
        case ignoredQueryParameters, ignoredBodyFields, includeBodyFingerprint, includeHost, matchedHeaders, graphQLPaths
    }

    /// Missing keys take their defaults, so a configuration file only names what it changes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            ignoredQueryParameters: try container.decodeIfPresent([String].self, forKey: .ignoredQueryParameters) ?? [],
            ignoredBodyFields: try container.decodeIfPresent([String].self, forKey: .ignoredBodyFields) ?? [],
            includeBodyFingerprint: try container.decodeIfPresent(Bool.self, forKey: .includeBodyFingerprint) ?? true,
            includeHost: try container.decodeIfPresent(Bool.self, forKey: .includeHost) ?? false,
            matchedHeaders: try container.decodeIfPresent([String].self, forKey: .matchedHeaders) ?? [],
            graphQLPaths: try container.decodeIfPresent([String].self, forKey: .graphQLPaths) ?? Array(Self.defaultGraphQLPaths)
        )
    }

    /// Sets are written sorted, so an encoded configuration is stable and diffable.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ignoredQueryParameters.sorted(), forKey: .ignoredQueryParameters)
        try container.encode(ignoredBodyFields.sorted(), forKey: .ignoredBodyFields)
        try container.encode(includeBodyFingerprint, forKey: .includeBodyFingerprint)
        try container.encode(includeHost, forKey: .includeHost)
        if !matchedHeaders.isEmpty {
            try container.encode(matchedHeaders.sorted(), forKey: .matchedHeaders)
        }
        // Left out at the default, so rules stored before GraphQL keying read back equal.
        if graphQLPaths != Self.defaultGraphQLPaths {
            try container.encode(graphQLPaths.sorted(), forKey: .graphQLPaths)
        }
    }

    private static func lowercased(_ names: some Sequence<String>) -> Set<String> {
        Set(names.map { $0.lowercased() })
    }

    /// Whether a query parameter or form field name (normalized bytes, escapes still in place) is one
    /// of the lower-cased `names`.
    static func isListed(normalizedName: ArraySlice<UInt8>, in names: Set<String>) -> Bool {
        guard !names.isEmpty else { return false }
        var bytes =
            normalizedName.contains(PercentEncoding.percent)
            ? PercentEncoding.decode(normalizedName) : Array(normalizedName)
        var isASCII = true
        for index in bytes.indices {
            let byte = bytes[index]
            if byte >= 0x80 {
                isASCII = false
            } else if byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") {
                bytes[index] = byte + 0x20
            }
        }
        let name = String(decoding: bytes, as: UTF8.self)
        return names.contains(isASCII ? name : name.lowercased())
    }
}
