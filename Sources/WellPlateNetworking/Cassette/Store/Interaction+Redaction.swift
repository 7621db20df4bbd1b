import Foundation
import HTTPTypes

extension Interaction {
    /// The interaction as recording would store it: request redacted, the request's secrets
    /// scrubbed wherever the response repeats them, response headers cleaned of wire framing
    /// (`Content-Length` describing the body), and the key computed from the redacted request.
    /// For recordings that come from elsewhere (HAR imports) rather than through a session.
    public func redactedForStorage(by redactor: Redactor, rules: MatchingRules) -> Interaction {
        var stored = self
        let originalURL = URL(string: url)
        let secrets = originalURL.map { redactor.secretValues(url: $0, headerFields: requestHeaders, body: requestBody) } ?? []
        if let originalURL { stored.url = redactor.redactedURL(originalURL).absoluteString }
        stored.requestHeaders = redactor.redact(headers: requestHeaders)
        if let requestBody {
            stored.requestBody = redactor.redact(body: requestBody, contentType: requestHeaders[.contentType])
        }
        let body = redactor.scrub(redactor.redact(body: responseBody, contentType: responseHeaders[.contentType]), secrets: secrets)
        let headers = Interaction.storedResponseHeaders(responseHeaders, bodyCount: body.count, statusCode: statusCode, method: method)
        stored.responseBody = body
        stored.responseHeaders = redactor.scrub(redactor.redact(headers: headers), secrets: secrets)
        stored.key = RequestKey(recording: stored, rules: rules).rawValue
        return stored
    }
}
