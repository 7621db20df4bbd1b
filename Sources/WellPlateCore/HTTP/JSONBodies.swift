import Foundation

/// Which bodies are JSON: one rule for the schema, the OpenAPI document, the generated models and
/// the suites that decode recordings with them.
package enum JSONBodies {
    /// `application/json`, `text/json`, `application/problem+json`; parameters such as
    /// `; charset=utf-8` are ignored. A blank value counts as JSON, like a missing one.
    package static func isJSONMediaType(_ contentType: String) -> Bool {
        let essence = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let name = essence.trimmingCharacters(in: .whitespaces).lowercased()
        if name.isEmpty { return true }
        guard let slash = name.firstIndex(of: "/") else { return false }
        let subtype = name[name.index(after: slash)...]
        return subtype == "json" || subtype.hasSuffix("+json")
    }

    /// The body's media type as documented (the essence of `Content-Type`, else what it parses as)
    /// and its JSON value when it is JSON.
    package static func classify(_ body: Data, contentType: String?) -> (String, JSONValue?) {
        if let contentType {
            let essence = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            if isJSONMediaType(contentType) {
                let json = try? JSONValue(parsing: body)
                return (essence.isEmpty ? "application/json" : (json == nil ? "application/octet-stream" : essence), json)
            }
            return (essence.isEmpty ? "application/octet-stream" : essence, nil)
        }
        if let json = try? JSONValue(parsing: body) { return ("application/json", json) }
        return ("application/octet-stream", nil)
    }

    /// A 2xx answer's body when it is JSON (by `Content-Type`, or parsing when there is none).
    package static func successBody(of interaction: Interaction) -> JSONValue? {
        guard (200..<300).contains(interaction.statusCode), !interaction.responseBody.isEmpty else { return nil }
        if let contentType = interaction.responseHeaders[.contentType], !isJSONMediaType(contentType) {
            return nil
        }
        return try? JSONValue(parsing: interaction.responseBody)
    }

    /// A JSON text sequence (RFC 7464): several JSON texts in one body, each after a record
    /// separator (0x1E) and before a line feed. How a gRPC call's response messages are one
    /// recording for `schema` and `diff` (`GRPCEndpoints`).
    package static let jsonSequenceMediaType = "application/json-seq"

    /// `values` as a JSON text sequence.
    package static func jsonSequence(_ values: [JSONValue]) -> Data {
        var data = Data()
        for value in values {
            data.append(0x1E)
            data.append(value.jsonData())
            data.append(0x0A)
        }
        return data
    }

    /// A 2xx answer's JSON texts when its body is a JSON text sequence (`application/json-seq`);
    /// `nil` for any other answer, or one whose texts do not all parse.
    package static func successSequence(of interaction: Interaction) -> [JSONValue]? {
        guard (200..<300).contains(interaction.statusCode), let contentType = interaction.responseHeaders[.contentType] else { return nil }
        let essence = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard essence == jsonSequenceMediaType else { return nil }
        var values: [JSONValue] = []
        for text in interaction.responseBody.split(separator: 0x1E) where !text.allSatisfy({ $0 == 0x0A || $0 == 0x20 }) {
            guard let value = try? JSONValue(parsing: Data(text)) else { return nil }
            values.append(value)
        }
        return values.isEmpty ? nil : values
    }

    /// A GraphQL answer's `data` (a 2xx JSON answer whose `data` is not `null`): what a model of
    /// the operation decodes. `errors` beside it are the server's report, not part of the data.
    package static func graphQLData(of interaction: Interaction) -> JSONValue? {
        guard let data = successBody(of: interaction)?["data"], !data.isNull else { return nil }
        return data
    }
}
