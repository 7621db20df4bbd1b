import CassetteKernel
import CassetteProxy
import CassetteServing
import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// Everything recorded about one interaction, as `cassette show` prints it.
struct InteractionReport {
    let interaction: Interaction
    /// How many recordings share its key in its cassette, to print "sequence 1 of 3".
    let recordingsOfKey: Int
    private let requestHeaders: [Header]
    private let responseHeaders: [Header]

    /// A header field in recorded order; duplicates are kept.
    private typealias Header = (name: String, value: String)

    init(interaction: Interaction, recordingsOfKey: Int) {
        self.interaction = interaction
        self.recordingsOfKey = recordingsOfKey
        requestHeaders = interaction.requestHeaders.map { ($0.name.rawName, $0.value) }
        responseHeaders = interaction.responseHeaders.map { ($0.name.rawName, $0.value) }
    }

    var lines: [String] {
        let interaction = interaction
        var lines = [Terminal.paint("\(interaction.method.rawValue) \(interaction.url)", .bold)]
        lines.append("  id:           \(interaction.id.map(String.init) ?? "-")")
        lines.append("  cassette:     \(interaction.cassette)")
        lines.append("  key:          \(interaction.key)")
        lines.append("  sequence:     \(interaction.sequence) (\(recordingsOfKey) recorded for this key)")
        lines.append("  recorded at:  \(Formatting.timestamp(interaction.recordedAt))")
        lines.append("  duration:     \(Formatting.duration(milliseconds: interaction.durationMilliseconds))")
        lines.append("")
        lines += section("Request headers", headers(requestHeaders))
        let requestBody = interaction.requestBody.map { BodyPreview($0, contentType: interaction.requestHeaders[.contentType]) }
        lines += body("Request body", requestBody, size: interaction.requestBody?.count ?? 0)
        lines.append("")
        lines.append(Terminal.paint("Status: \(interaction.statusCode)", interaction.statusCode >= 400 ? .red : .green))
        lines += section("Response headers", headers(responseHeaders))
        if let encoding = interaction.contentEncoding {
            lines.append("Content-Encoding on the wire: \(encoding) (stored decoded)")
        }
        let responseBody = BodyPreview(interaction.responseBody, contentType: interaction.responseHeaders[.contentType])
        lines += body("Response body", responseBody, size: interaction.responseBody.count)
        return lines
    }

    /// The `--json` object; keys are written sorted.
    var jsonValue: JSONValue {
        let interaction = interaction
        let requestBody = interaction.requestBody.map { BodyPreview($0, contentType: interaction.requestHeaders[.contentType]).jsonValue } ?? .null
        return [
            "id": interaction.id.map { .integer($0) } ?? .null,
            "cassette": .string(interaction.cassette),
            "method": .string(interaction.method.rawValue),
            "url": .string(interaction.url),
            "key": .string(interaction.key),
            "sequence": .integer(Int64(interaction.sequence)),
            "recordedAt": .string(Formatting.timestamp(interaction.recordedAt)),
            "durationMs": .number(Formatting.milliseconds(interaction.durationMilliseconds)),
            "requestHeaders": headersJSON(requestHeaders),
            "requestBody": requestBody,
            "status": .integer(Int64(interaction.statusCode)),
            "responseHeaders": headersJSON(responseHeaders),
            "responseBody": BodyPreview(interaction.responseBody, contentType: interaction.responseHeaders[.contentType]).jsonValue,
            "contentEncoding": interaction.contentEncoding.map(JSONValue.string) ?? .null,
        ]
    }

    private func headers(_ fields: [Header]) -> [String] {
        fields.map { "  \($0.name): \($0.value)" }
    }

    private func headersJSON(_ fields: [Header]) -> JSONValue {
        .array(fields.map { ["name": .string($0.name), "value": .string($0.value)] })
    }

    private func section(_ title: String, _ lines: [String]) -> [String] {
        lines.isEmpty ? ["\(title): none"] : ["\(title):"] + lines
    }

    private func body(_ title: String, _ preview: BodyPreview?, size: Int) -> [String] {
        guard let preview, preview != .empty else { return ["\(title): none"] }
        return ["\(title) (\(preview.kind), \(Formatting.byteCount(size))):"] + preview.lines
    }
}
