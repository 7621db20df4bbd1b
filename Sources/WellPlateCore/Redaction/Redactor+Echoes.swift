import Foundation
import HTTPTypes

/// Recording which `REDACTED` of a response stands for a secret of its request's headers
/// (`SecretEcho`), while the response is scrubbed: the stored bytes are exactly those the plain
/// scrub writes; only the places are noted beside them.
extension Redactor {
    /// Every spelling of every secret the request's secret headers and cookies carry, with where
    /// it came from. Where two origins spell the same bytes, the first kept wins: the whole value
    /// before a part of it, the raw spelling before an encoded one (`jsonFirst`: JSON's before
    /// the raw one, for a JSON body, where the two are the same for most values but a live value
    /// with `"` or `/` must be written escaped).
    package func echoOrigins(of requestHeaders: HTTPFields, jsonFirst: Bool = false) -> [[UInt8]: SecretEcho.Origin] {
        guard isEnabled else { return [:] }
        var origins: [[UInt8]: SecretEcho.Origin] = [:]
        func add(_ source: SecretEcho.Source, _ value: String, derivations: [SecretEcho.Derivation]) {
            for derivation in derivations {
                guard let derived = derivation.apply(to: value), derived != Self.placeholder else { continue }
                for encoding in jsonFirst ? [.json] + SecretEcho.Encoding.allCases : SecretEcho.Encoding.allCases {
                    guard let form = encoding.apply(to: derived), !form.isEmpty else { continue }
                    let bytes = Array(form.utf8)
                    if origins[bytes] == nil { origins[bytes] = SecretEcho.Origin(source: source, derivation: derivation, encoding: encoding) }
                }
            }
        }
        for field in requestHeaders {
            let name = field.name.canonicalName
            guard name != "set-cookie", isSecret(name: name, value: field.value) else { continue }
            if name == "cookie" {
                for part in field.value.split(separator: ";") {
                    guard let equals = part.firstIndex(of: "=") else { continue }
                    let cookieName = part[..<equals].trimmingCharacters(in: .whitespaces)
                    guard !cookieName.isEmpty, redactsCookie(name: part[..<equals], value: part[part.index(after: equals)...]),
                        let value = SecretEcho.cookie(named: cookieName, in: String(part))
                    else { continue }
                    add(.cookie(cookieName), value, derivations: [.whole])
                }
            } else {
                add(.header(name), field.value, derivations: SecretEcho.Derivation.allCases)
            }
        }
        return origins
    }

    /// `redactCollectingSecrets(responseHeaders:body:requestSecrets:)`, also returning where the
    /// stored response holds a secret of the request's secret headers and cookies (`requestHeaders`).
    package func redactCollectingSecrets(
        responseHeaders: HTTPFields, body: Data, requestSecrets: SecretValues, echoing requestHeaders: HTTPFields
    ) -> (headerFields: HTTPFields, body: Data, found: SecretValues, echoes: [SecretEcho]) {
        let origins = echoOrigins(of: requestHeaders)
        guard isEnabled, !origins.isEmpty else {
            let result = redactCollectingSecrets(responseHeaders: responseHeaders, body: body, requestSecrets: requestSecrets)
            return (result.headerFields, result.body, result.found, [])
        }
        var found = secretValues(headers: responseHeaders)
        let (redacted, inBody) = redactCollectingSecrets(body: body, contentType: responseHeaders[.contentType])
        found.formUnion(inBody)
        let forms = requestSecrets.union(found).orderedForms
        var echoes: [SecretEcho] = []
        var storedBody = redacted
        let bodyOrigins =
            Self.mayBeJSON(redacted, contentType: responseHeaders[.contentType]?.lowercased() ?? "")
            ? echoOrigins(of: requestHeaders, jsonFirst: true) : origins
        if !redacted.isEmpty, let (scrubbed, marks) = Self.scrubMarking(Array(redacted), forms: forms, origins: bodyOrigins) {
            storedBody = Data(scrubbed)
            echoes += marks.map {
                SecretEcho(part: .body, offset: $0.offset, source: $0.origin.source, derivation: $0.origin.derivation, encoding: $0.origin.encoding)
            }
        }
        var fields = redact(headers: responseHeaders)
        var occurrences: [String: Int] = [:]
        for index in fields.indices {
            let name = fields[index].name.canonicalName
            let occurrence = occurrences[name, default: 0]
            occurrences[name] = occurrence + 1
            guard let (scrubbed, marks) = Self.scrubMarking(Array(fields[index].value.utf8), forms: forms, origins: origins) else { continue }
            fields[index].value = String(decoding: scrubbed, as: UTF8.self)
            echoes += marks.map {
                SecretEcho(
                    part: .header(name, occurrence: occurrence), offset: $0.offset, source: $0.origin.source, derivation: $0.origin.derivation,
                    encoding: $0.origin.encoding)
            }
        }
        return (fields, storedBody, found, echoes)
    }

    /// `scrub(_:forms:)`, byte for byte the same result, noting where each form that has an origin
    /// was replaced (offsets in the result); `nil` when no form occurs.
    static func scrubMarking(
        _ bytes: [UInt8], forms: [[UInt8]], origins: [[UInt8]: SecretEcho.Origin]
    ) -> (bytes: [UInt8], marks: [(offset: Int, origin: SecretEcho.Origin)])? {
        var current = bytes
        var changed = false
        var marks: [(offset: Int, origin: SecretEcho.Origin)] = []
        let placeholder = Array(placeholder.utf8)
        for form in forms where !form.isEmpty && form.count <= current.count {
            let wholeTokenOnly = form.count < SecretValues.substringLength
            var matches: [Int] = []
            var index = 0
            let last = current.count - form.count
            while index <= last {
                if current[index] == form[0], current[index..<(index + form.count)].elementsEqual(form),
                    !wholeTokenOnly || isTokenBoundary(current, before: index, after: index + form.count)
                {
                    matches.append(index)
                    index += form.count
                } else {
                    index += 1
                }
            }
            guard !matches.isEmpty else { continue }
            var output: [UInt8] = []
            output.reserveCapacity(current.count)
            var copied = 0
            var newMarks: [(offset: Int, origin: SecretEcho.Origin)] = []
            for match in matches {
                output.append(contentsOf: current[copied..<match])
                if let origin = origins[form] { newMarks.append((output.count, origin)) }
                output.append(contentsOf: placeholder)
                copied = match + form.count
            }
            output.append(contentsOf: current[copied...])
            // Earlier marks move by what this pass changed before them; one it replaced goes.
            let shift = placeholder.count - form.count
            marks = marks.compactMap { mark in
                let end = mark.offset + placeholder.count
                if matches.contains(where: { $0 < end && $0 + form.count > mark.offset }) { return nil }
                let before = matches.count { $0 < mark.offset }
                return (mark.offset + before * shift, mark.origin)
            }
            marks += newMarks
            current = output
            changed = true
        }
        guard changed else { return nil }
        return (current, marks.sorted { $0.offset < $1.offset })
    }
}
