import Crypto
import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

/// A stable, line-oriented text of a store for `git diff` (as a textconv) and code review: one
/// block per recording, sorted by cassette, key and sequence, then one per WebSocket
/// conversation (its messages one line each); JSON bodies pretty-printed with
/// sorted keys; binary bodies as their size and SHA-256. What changes on every re-recording
/// without the API changing (recording times, durations, the `Date` header, row ids) is left
/// out unless `includesTimestamps`.
package struct CassetteDump: Sendable {
    package var includesTimestamps: Bool
    /// The store's protobuf descriptors: gRPC messages print as protobuf JSON with them.
    package var protoSchema: ProtoSchema

    package init(includesTimestamps: Bool = false, protoSchema: ProtoSchema = ProtoSchema()) {
        self.includesTimestamps = includesTimestamps
        self.protoSchema = protoSchema
    }

    package func text(cassettes: [CassetteInfo], interactions: [Interaction], conversations: [Conversation] = []) -> String {
        var lines: [String] = []
        let byCassette = Dictionary(grouping: interactions, by: \.cassette)
        let conversationsByCassette = Dictionary(grouping: conversations, by: \.cassette)
        let names = Set(cassettes.map(\.name)).union(byCassette.keys).union(conversationsByCassette.keys).sorted()
        let infos = Dictionary(cassettes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for name in names {
            lines.append("cassette \(name)")
            if let info = infos[name] {
                if let upstream = info.upstream { lines.append("  upstream \(upstream)") }
                lines.append("  matching \(Self.rules(info.matchingRules))")
            }
            let recordings = (byCassette[name] ?? []).sorted { ($0.key, $0.sequence) < ($1.key, $1.sequence) }
            lines.append("  \(recordings.count) recording\(recordings.count == 1 ? "" : "s")")
            lines.append("")
            for recording in recordings {
                append(recording, to: &lines)
                lines.append("")
            }
            appendConversations(conversationsByCassette[name] ?? [], to: &lines)
        }
        return lines.joined(separator: "\n") + (lines.isEmpty ? "" : "\n")
    }

    private func append(_ recording: Interaction, to lines: inout [String]) {
        lines.append("=== \(recording.cassette) \(recording.key) #\(recording.sequence)")
        lines.append("request \(recording.method.rawValue) \(recording.url)")
        for field in recording.requestHeaders {
            lines.append("request header \(field.name.rawName): \(field.value)")
        }
        if let body = recording.requestBody {
            Self.append(body: body, label: "request body", to: &lines)
        }
        lines.append("status \(recording.statusCode)")
        for field in recording.responseHeaders where includesTimestamps || field.name != .date {
            lines.append("response header \(field.name.rawName): \(field.value)")
        }
        if let encoding = recording.contentEncoding {
            lines.append("response encoding \(encoding) (stored decoded)")
        }
        Self.append(body: recording.responseBody, label: "response body", to: &lines)
        if includesTimestamps {
            lines.append("recorded \(Self.timestamp(recording.recordedAt)) in \(Self.milliseconds(recording.durationMilliseconds)) ms")
        }
    }

    private static func append(body: Data, label: String, to lines: inout [String]) {
        if body.isEmpty {
            lines.append("\(label) empty")
            return
        }
        if let json = try? JSONValue(parsing: body), json.isContainer {
            lines.append("\(label) json, \(body.count) bytes")
            lines += json.prettyJSON.split(separator: "\n", omittingEmptySubsequences: false).map { "    \($0)" }
            return
        }
        if let text = String(data: body, encoding: .utf8), Data(text.utf8) == body,
            !text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" && $0 != "\t" && $0 != "\r" })
        {
            let finalNewline = text.hasSuffix("\n")
            lines.append("\(label) text, \(body.count) bytes\(finalNewline ? "" : ", no final newline")")
            let content = finalNewline ? String(text.dropLast()) : text
            lines += content.split(separator: "\n", omittingEmptySubsequences: false).map { "    \($0)" }
            return
        }
        let digest = SHA256.hash(data: body).hex
        lines.append("\(label) binary, \(body.count) bytes, sha256 \(digest)")
    }

    private static func rules(_ rules: MatchingRules) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(rules)).map { String(decoding: $0, as: UTF8.self) } ?? "default"
    }

    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    private static func milliseconds(_ value: Double) -> String {
        String(format: "%.1f", value)
    }
}

private extension JSONValue {
    /// Objects and arrays: a bare number or string body reads better as text.
    var isContainer: Bool {
        switch self {
        case .object, .array: true
        default: false
        }
    }
}
