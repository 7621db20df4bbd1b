import Foundation
import HTTPTypes

/// The replay hot path for a server that holds the request target (`/path?query`) rather than a
/// URL, and the index lookups every replay ends in.
extension CassetteSession {
    /// The key of a request given by its target (`/path?query`) without a body, for callers that
    /// cache it per target. `secretHeaders`: the request's secret headers (credentials, cookies),
    /// whose values are scrubbed from the target as when the request was recorded.
    package func keyText(method: HTTPMethod, target: String, secretHeaders: HTTPFields = [:]) -> String {
        key(method: method, target: target, contentType: nil, body: nil, secretHeaders: secretHeaders).rawValue
    }

    /// The key of any request given by its target, for callers that look up by
    /// slot (`replayPick(slot:key:)`); `headerFields`: its keyed header fields, if any.
    package func replayKey(
        method: HTTPMethod, target: String, contentType: String?, body: Data?, secretHeaders: HTTPFields = [:], headerFields: HTTPFields = [:]
    ) -> RequestKey {
        let contentType = headerFields.isEmpty ? contentType : headerFields[.contentType]
        return key(method: method, target: target, contentType: contentType, body: body, secretHeaders: secretHeaders, headerFields: headerFields)
    }

    /// The target as keyed, logged and stored: secret query values replaced, and the values of
    /// the secret headers and query parameters scrubbed from the path and query.
    package func redactedTarget(_ target: String, secretHeaders: HTTPFields = [:]) -> String {
        options.redactor.redact(requestURL: target, headerFields: secretHeaders, body: nil).url
    }

    /// The one place a request given by its target is keyed.
    private func key(
        method: HTTPMethod, target: String, contentType: String?, body: Data?, secretHeaders: HTTPFields, headerFields: HTTPFields = [:]
    ) -> RequestKey {
        let carried = method.carriesBody ? body : nil
        var fields = secretHeaders
        if let contentType, carried != nil { fields[.contentType] = contentType }
        let redacted = options.redactor.redact(requestURL: target, headerFields: fields, body: carried)
        // Keyed headers (conditional, matchHeaders) count as redacted, as when recorded.
        var keyFields = headerFields.isEmpty ? HTTPFields() : options.redactor.redact(headers: headerFields)
        if let contentType, carried != nil { keyFields[.contentType] = contentType }
        return RequestKey(method: method, target: redacted.url, headerFields: keyFields, body: carried != nil ? redacted.body : body, rules: matchingRules)
    }

    /// The replay proxy's hot path: takes the next recording at `slot` (`index.slot(for: keyText)`,
    /// kept by the caller; `nil` for a key without recordings), counted like every replay. The
    /// pick names a loaded recording by position, so the caller answers from what it prepared
    /// for it. `keyText` only explains a miss or an exhausted sequence, and `key` (from
    /// `replayKey`) does it better for a request with a body, which the text only fingerprints.
    package func replayPick(slot: ReplayIndex.Slot?, keyText: String, key: RequestKey? = nil) throws -> ReplayIndex.Pick {
        let explained = { key ?? Self.parsedKey(keyText) }
        guard let slot else { return try resolve(.miss, key: explained) }
        return try resolve(index.next(at: slot), key: explained)
    }

    private static func parsedKey(_ keyText: String) -> RequestKey {
        // Key text this session produced always parses back.
        RequestKey(rawValue: keyText) ?? RequestKey(method: .get, target: "/")
    }

    func lookup(key: RequestKey) throws -> Interaction {
        try resolve(index.next(for: key.rawValue)) { key }
    }

    private func resolve<Value>(_ lookup: ReplayIndex.Selection<Value>, key: () -> RequestKey) throws -> Value {
        switch lookup {
        case .hit(let value, _):
            replayedCount.add(1, ordering: .relaxed)
            return value
        case .exhausted(let count):
            missedCount.add(1, ordering: .relaxed)
            throw miss(for: key(), exhaustedAfter: count)
        case .miss:
            missedCount.add(1, ordering: .relaxed)
            throw miss(for: key(), exhaustedAfter: nil)
        }
    }
}
