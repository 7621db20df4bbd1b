import Crypto
import Foundation
import HTTPTypes
import WellPlateCore

/// The report's recordings packed for size: each distinct header line, each distinct set of
/// header lines and each distinct body is written once, in a table, and a recording is a row of
/// values (its columns named once) that points into them. Recordings of one API repeat most of
/// their headers and many of their bodies; written out whole, the 10,000 recordings of
/// `Benchmarks/report.sh` took 10.9 MiB. A key that reads `METHOD TARGET` of its own URL is
/// left out (`null`): the page makes it again. The page unpacks a row when it draws it.
struct ReportTables {
    /// The row's values in order, as the page reads them.
    static let columns = [
        "id", "cassette", "method", "url", "key", "sequence", "status", "recordedAtMs", "durationMs", "operation", "requestHeaders",
        "responseHeaders", "requestBody", "responseBody",
    ]

    /// A body by its SHA-256: `Data`'s own hash may read only its first bytes, and JSON bodies
    /// of one API share long prefixes.
    private struct BodyKey: Hashable {
        var digest: [UInt8]
        var contentType: String?
    }

    private var pairs: [JSONValue] = []
    private var pairIndex: [[String]: Int] = [:]
    private var sets: [JSONValue] = []
    private var setIndex: [[Int]: Int] = [:]
    private var bodies: [JSONValue] = []
    private var bodyIndex: [BodyKey: Int] = [:]
    private var rows: [JSONValue] = []

    /// Adds `interaction` as a row; its bodies as `catalog.body(_:contentType:)` gives them.
    mutating func add(_ interaction: Interaction, catalog: UICatalog) {
        let requestBody = interaction.requestBody.map { body($0, contentType: interaction.requestHeaders[.contentType], catalog: catalog) }
        let responseBody = body(interaction.responseBody, contentType: interaction.responseHeaders[.contentType], catalog: catalog)
        let derivable = Self.derivedKey(method: interaction.method.rawValue, url: interaction.url) == interaction.key
        rows.append(
            .array([
                .integer(interaction.id ?? 0), .string(interaction.cassette), .string(interaction.method.rawValue), .string(interaction.url),
                derivable ? .null : .string(interaction.key), .integer(Int64(interaction.sequence)), .integer(Int64(interaction.statusCode)),
                .integer(Int64((interaction.recordedAt.timeIntervalSince1970 * 1000).rounded())), .number(interaction.durationMilliseconds),
                GraphQLKeyPart(inKey: interaction.key).map { JSONValue.string($0.label) } ?? .null,
                .integer(Int64(headers(interaction.requestHeaders))), .integer(Int64(headers(interaction.responseHeaders))),
                requestBody.map { .integer(Int64($0)) } ?? .null, .integer(Int64(responseBody)),
            ]))
    }

    /// `{columns, headerLines, headerSets, bodies, rows}`.
    var json: JSONValue {
        [
            "columns": .array(Self.columns.map(JSONValue.string)), "headerLines": .array(pairs), "headerSets": .array(sets), "bodies": .array(bodies),
            "rows": .array(rows),
        ]
    }

    /// `GET /items/1?a=b` for `GET` and `http://host/items/1?a=b`: what the page makes of a row
    /// whose key is `null` (the same rule in app.js's `derivedKey`). `nil` for a URL without `://`.
    static func derivedKey(method: String, url: String) -> String? {
        guard let scheme = url.range(of: "://") else { return nil }
        let rest = url[scheme.upperBound...]
        let target = rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "/"
        return method + " " + target
    }

    private mutating func headers(_ fields: HTTPFields) -> Int {
        let lines = fields.map { field -> Int in
            let pair = [field.name.rawName, field.value]
            if let known = pairIndex[pair] { return known }
            pairs.append(.array(pair.map(JSONValue.string)))
            pairIndex[pair] = pairs.count - 1
            return pairs.count - 1
        }
        if let known = setIndex[lines] { return known }
        sets.append(.array(lines.map { .integer(Int64($0)) }))
        setIndex[lines] = sets.count - 1
        return sets.count - 1
    }

    private mutating func body(_ data: Data, contentType: String?, catalog: UICatalog) -> Int {
        let key = BodyKey(digest: Array(SHA256.hash(data: data)), contentType: contentType)
        if let known = bodyIndex[key] { return known }
        bodies.append(catalog.body(data, contentType: contentType))
        bodyIndex[key] = bodies.count - 1
        return bodies.count - 1
    }
}
