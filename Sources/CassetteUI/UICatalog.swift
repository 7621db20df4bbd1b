import Foundation
import HTTPTypes
import WellPlateCore

/// The UI's data, read from a store as JSON: the cassettes, one page of recordings, one recording.
/// The served UI (`api/...`) and the HTML report give the page the same shapes. Every call reads
/// through the store's actor, on its own serial queue, never on an event loop.
package struct UICatalog: Sendable {
    package let store: CassetteStore
    /// Bodies longer than this are shown up to it (the rest is left out of the page and the report).
    package var bodyLimit = 256 * 1024
    /// Recordings a serving proxy has not replayed yet, by cassette; others come from the store's
    /// usage (`--track-usage`), or are unknown.
    package var unusedByCassette: @Sendable () -> [String: Int] = { [:] }
    /// The gRPC methods (by cassette) that no call of a serving proxy has used yet, counted apart
    /// from its recordings (a method is not a recording); only for a cassette that holds calls.
    package var unusedGRPCMethodsByCassette: @Sendable () -> [String: Int] = { [:] }
    /// The Drift view's data, `{"audit": {...}, "drift": {...} | null}`: the store's audit
    /// findings (values masked) and, with `--fixtures DIR`, `cassette diff`'s comparison per
    /// endpoint. Made by the command (the audit and the drift are tool code, which neither this
    /// target nor the proxy links); `nil` where nobody gave it (the view says so).
    package var findings: (@Sendable () async throws -> JSONValue)?

    package init(store: CassetteStore) {
        self.store = store
    }

    /// `{"cassettes": [{name, interactions, grpcCalls, conversations, hosts, upstreams,
    /// lastRecorded, size, unused, unusedGRPCMethods}]}`: `interactions` counts HTTP recordings, `grpcCalls` and
    /// `conversations` (WebSocket) the rest; `hosts` are the origins of their URLs (a gRPC call
    /// is stored under its method's path, without a host); `upstreams` what the cassette was
    /// recorded from, as it remembers them (`cassette list --cassettes`' UPSTREAM); `size` the
    /// response bodies and message payloads stored; `lastRecorded` the latest of all three kinds;
    /// `unused` and `unusedGRPCMethods` as `unused(of:served:servedMethods:)` counts them.
    package func cassettes() async throws -> JSONValue {
        let summaries = try await store.cassettes()
        let served = unusedByCassette()
        let unusedMethods = unusedGRPCMethodsByCassette()
        var rows: [JSONValue] = []
        for summary in summaries {
            let hosts = try await store.recordedOrigins(cassette: summary.name)
            let unused = try await unused(of: summary, served: served[summary.name], servedMethods: unusedMethods[summary.name])
            rows.append([
                "name": .string(summary.name),
                "interactions": .integer(Int64(summary.interactionCount)),
                "grpcCalls": .integer(Int64(summary.grpcCallCount)),
                "conversations": .integer(Int64(summary.conversationCount)),
                "hosts": .array(hosts.map(JSONValue.string)),
                "upstreams": .array(Self.upstreams(summary).map(JSONValue.string)),
                "lastRecorded": summary.lastRecordedAt.map { JSONValue.string(Self.timestamp($0)) } ?? .null,
                "size": .integer(Int64(summary.storedBytes)),
                "unused": unused.recordings,
                "unusedGRPCMethods": unused.methods,
            ])
        }
        return ["cassettes": .array(rows)]
    }

    /// The upstream URLs the cassette remembers (one, or a multi-host recording's several).
    static func upstreams(_ summary: CassetteSummary) -> [String] {
        (summary.upstream ?? "").split(separator: " ").map(String.init)
    }

    /// `{"total": N, "offset": N, "rows": [...]}`: one page of the list.
    package func interactions(_ query: InteractionBrowseQuery) async throws -> JSONValue {
        let (rows, total) = try await store.browse(query)
        return [
            "total": .integer(Int64(total)),
            "offset": .integer(Int64(query.offset)),
            "rows": .array(
                rows.map { row in
                    [
                        "id": .integer(row.id), "cassette": .string(row.cassette), "method": .string(row.method), "url": .string(row.url),
                        "status": .integer(Int64(row.statusCode)), "size": .integer(Int64(row.bodySize)),
                        "recordedAt": .string(Self.timestamp(row.recordedAt)), "durationMs": .number(row.durationMilliseconds),
                        "operation": row.operation.map(JSONValue.string) ?? .null,
                    ]
                }),
        ]
    }

    /// One recording with its headers and bodies; `nil` when the store has no row `id`.
    package func interaction(id: Int64) async throws -> JSONValue? {
        guard let found = try await store.interaction(id: id) else { return nil }
        return detail(found)
    }

    /// The detail of `interaction`, as the page shows it (and as the report carries every recording).
    package func detail(_ interaction: Interaction) -> JSONValue {
        var object: JSONObject = [
            "id": .integer(interaction.id ?? 0),
            "cassette": .string(interaction.cassette),
            "method": .string(interaction.method.rawValue),
            "url": .string(interaction.url),
            "key": .string(interaction.key),
            "sequence": .integer(Int64(interaction.sequence)),
            "status": .integer(Int64(interaction.statusCode)),
            "size": .integer(Int64(interaction.responseBody.count)),
            "recordedAt": .string(Self.timestamp(interaction.recordedAt)),
            "durationMs": .number(interaction.durationMilliseconds),
            "operation": GraphQLKeyPart(inKey: interaction.key).map { JSONValue.string($0.label) } ?? .null,
            "requestHeaders": Self.headers(interaction.requestHeaders),
            "responseHeaders": Self.headers(interaction.responseHeaders),
            "responseBody": body(interaction.responseBody, contentType: interaction.responseHeaders[.contentType]),
        ]
        if let request = interaction.requestBody {
            object["requestBody"] = body(request, contentType: interaction.requestHeaders[.contentType])
        }
        return .object(object)
    }

    /// A body as text when it is UTF-8 without NUL bytes, else as base64 (the page shows hex or
    /// the image), up to `bodyLimit`.
    func body(_ data: Data, contentType: String?) -> JSONValue {
        let shown = data.prefix(bodyLimit)
        var object: JSONObject = ["size": .integer(Int64(data.count)), "contentType": contentType.map(JSONValue.string) ?? .null]
        if data.count > bodyLimit {
            object["truncated"] = true
            object["shown"] = .integer(Int64(shown.count))
        }
        if !shown.contains(0), let text = String(data: shown, encoding: .utf8) {
            object["encoding"] = "utf8"
            object["text"] = .string(text)
        } else if data.count > bodyLimit, !shown.contains(0), let text = String(data: shown.prefix(shown.count - 3), encoding: .utf8) {
            // Cut inside a character: the text up to it.
            object["encoding"] = "utf8"
            object["text"] = .string(text)
        } else {
            object["encoding"] = "base64"
            object["text"] = .string(shown.base64EncodedString())
        }
        return .object(object)
    }

    static func headers(_ fields: HTTPFields) -> JSONValue {
        .array(fields.map { [.string($0.name.rawName), .string($0.value)] })
    }

    /// ISO 8601 with milliseconds, as the page parses it.
    package static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
