import Foundation
import HTTPTypes

extension Interaction {
    /// The interaction as recording would store it, by the same steps as `CassetteSession`'s
    /// record path: request redacted, the request's secrets scrubbed wherever the response repeats
    /// them, response headers cleaned of wire framing (`Content-Length` describing the body), and
    /// the key computed from the redacted request. For recordings that come from elsewhere (HAR
    /// imports) rather than through a session.
    package func redactedForStorage(by redactor: Redactor, rules: MatchingRules) -> Interaction {
        var stored = self
        let request = redactor.redact(requestURL: url, headerFields: requestHeaders, body: requestBody)
        stored.url = request.url
        stored.requestHeaders = request.headerFields
        stored.requestBody = request.body
        let secrets = URL(string: url).map { redactor.secretValues(url: $0, headerFields: requestHeaders, body: requestBody) } ?? SecretValues()
        let response = redactor.redact(responseHeaders: responseHeaders, body: responseBody, requestSecrets: secrets)
        stored.responseBody = response.body
        stored.responseHeaders = Interaction.storedResponseHeaders(
            response.headerFields, bodyCount: response.body.count, statusCode: statusCode, method: method)
        stored.key = RequestKey(recording: stored, rules: rules).rawValue
        return stored
    }
}

extension Interaction {
    /// The interaction with learned secrets scrubbed from its request and response, as a
    /// session that had learned them would have stored it.
    package func scrubbingLearned(_ learned: LearnedSecrets) -> Interaction {
        guard !learned.isEmpty else { return self }
        let limit = ReplayKeyer.learnedScrubBodyLimit
        var result = self
        result.url = learned.scrub(target: url)
        result.requestHeaders = learned.scrub(requestHeaders)
        result.requestBody = requestBody.map { $0.count > limit ? $0 : learned.scrub($0) }
        result.responseHeaders = learned.scrub(responseHeaders)
        if responseBody.count <= limit {
            result.responseBody = learned.scrub(responseBody)
            if result.responseBody != responseBody, result.responseHeaders[.contentLength] != nil {
                result.responseHeaders[.contentLength] = String(result.responseBody.count)
            }
        }
        return result
    }
}
