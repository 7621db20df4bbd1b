import Foundation
import HTTPTypes

/// The keying contract, in one place: which request headers take part in a key (the keyed ones:
/// conditional headers, `matchHeaders`) and which are scrubbed from it (the secret ones), and how
/// a request becomes a key and a log target. The session keys whole requests through it, and
/// servers that hold a request target rather than a URL (the proxy) key through it too, so a
/// request keys the same whichever way it arrives.
package struct ReplayKeyer: Sendable {
    package let redactor: Redactor
    package let rules: MatchingRules
    /// Request header names that are part of keys, lowercased.
    package let keyedHeaderNames: [String]
    /// The secret and keyed header names together, lowercased: a request that carries none of
    /// them (nearly every request) is keyed by its method and target alone.
    package let keyingHeaderNames: [String]
    /// Secrets first seen in responses, scrubbed from requests after the rules' redaction.
    package let learned: LearnedSecrets
    /// Credential shapes replaced in WebSocket messages (`cassette audit`'s, on the proxy).
    package let messageSecretShapes: MessageSecretShapes

    package init(
        redactor: Redactor, rules: MatchingRules, learned: LearnedSecrets = LearnedSecrets(), messageSecretShapes: MessageSecretShapes = .none
    ) {
        self.redactor = redactor
        self.rules = rules
        self.learned = learned
        self.messageSecretShapes = messageSecretShapes
        keyedHeaderNames = rules.keyedHeaderNames.map { $0.lowercased() }
        let secret = redactor.isEnabled ? Array(redactor.headerNames) : []
        keyingHeaderNames = Array(Set(keyedHeaderNames + secret.map { $0.lowercased() })).sorted()
    }

    /// Whether the value of header `name` is a secret, scrubbed from the target and body it keys.
    package func isSecretHeader(_ name: String) -> Bool {
        redactor.isSecretHeader(name)
    }

    // MARK: Whole requests

    /// The request as it would be stored, its key, and the secrets found in it (for scrubbing a
    /// response that repeats them): the one place a whole request is keyed.
    package func redactedWithKey(_ request: TransportRequest) -> (redacted: TransportRequest, key: RequestKey, secrets: SecretValues) {
        let result = redactor.redact(requestURL: request.url.absoluteString, headerFields: request.headerFields, body: request.body, learned: learned)
        var redacted = request
        let url = learned.scrub(target: result.url)
        redacted.url = URL(string: url) ?? redactor.redactedURL(request.url)
        redacted.headerFields = learned.scrub(result.headerFields)
        redacted.body = result.body.map(scrubLearned(body:))
        let key = RequestKey(method: request.method, url: redacted.url, headerFields: redacted.headerFields, body: redacted.body, rules: rules)
        return (redacted, key, result.secrets)
    }

    // MARK: Requests given by their target

    /// The key of a request given by its target (`/path?query`) with no body and no keying
    /// headers, for callers that cache it per target.
    package func keyText(method: HTTPMethod, target: String) -> String {
        key(method: method, target: target, contentType: nil, body: nil).rawValue
    }

    /// The key of any request given by its target. `secretHeaders`: its secret headers, whose
    /// values are scrubbed from the target and body as when it was recorded; `keyedFields`: its
    /// keyed header fields (with its Content-Type), if any; `graphQLOperationName`: its
    /// `X-APOLLO-OPERATION-NAME`, which names a GraphQL operation its body leaves unnamed.
    package func key(
        method: HTTPMethod, target: String, contentType: String?, body: Data?, secretHeaders: HTTPFields = [:], keyedFields: HTTPFields = [:],
        graphQLOperationName: String? = nil
    ) -> RequestKey {
        let contentType = keyedFields.isEmpty ? contentType : keyedFields[.contentType]
        let carried = method.carriesBody ? body : nil
        var fields = secretHeaders
        if let contentType, carried != nil { fields[.contentType] = contentType }
        let redacted = redactor.redact(requestURL: target, headerFields: fields, body: carried, learned: learned)
        // Keyed headers count as redacted, as when recorded.
        var keyFields = keyedFields.isEmpty ? HTTPFields() : learned.scrub(redactor.redact(headers: keyedFields))
        if let contentType, carried != nil { keyFields[.contentType] = contentType }
        if let graphQLOperationName { keyFields[GraphQLOperation.operationNameField] = graphQLOperationName }
        let keyedBody = carried != nil ? redacted.body.map(scrubLearned(body:)) : body
        return RequestKey(method: method, target: learned.scrub(target: redacted.url), headerFields: keyFields, body: keyedBody, rules: rules)
    }

    /// Bodies above this size (uploads) are not searched for learned secrets: every token of a
    /// large binary body would be hashed. The same limit holds recording and replaying.
    package static let learnedScrubBodyLimit = 1 << 20

    /// A request or response body with the learned secrets scrubbed, when it is small enough.
    package func scrubLearned(body: Data) -> Data {
        body.count > Self.learnedScrubBodyLimit ? body : learned.scrub(body)
    }

    /// The target as keyed, logged and stored: secret query values replaced, and the values of
    /// the secret headers and query parameters scrubbed from the path and query.
    package func redactedTarget(_ target: String, secretHeaders: HTTPFields = [:]) -> String {
        let redacted =
            secretHeaders.isEmpty
            ? redactor.redact(target: target) : redactor.redact(requestURL: target, headerFields: secretHeaders, body: nil, learned: learned).url
        return learned.scrub(target: redacted)
    }

    /// Whether the values of `secretHeaders` occur in the target, so that its key and log line
    /// differ from those of the same target sent without them.
    package func secretsOccur(in target: String, secretHeaders: HTTPFields) -> Bool {
        guard !secretHeaders.isEmpty else { return false }
        return redactor.scrub(target: target, secrets: redactor.secretValues(headers: secretHeaders, learned: learned)) != target
    }
}
