import Foundation
import HTTPTypes

/// A request as it may be stored, logged and keyed: structural redaction done, and every secret
/// it carried scrubbed from the rest of it.
package struct RedactedRequest: Sendable, Equatable {
    /// The URL or request target, with secrets replaced in its path and query.
    package var url: String
    package var headerFields: HTTPFields
    package var body: Data?
    /// What was found in the request's secret places, to scrub from its response too: what was
    /// followed into the request, and the values of its credential cookies however short.
    package var secrets: SecretValues
}

extension Redactor {
    /// Redacts a request's secret places, then scrubs every value found there from the URL's
    /// path and query, the other headers and the body. `url` may be absolute or a request target.
    /// `learned`: what responses taught (`secretValues(url:headerFields:body:learned:)`).
    package func redact(requestURL url: String, headerFields: HTTPFields, body: Data?, learned: LearnedSecrets? = nil) -> RedactedRequest {
        guard isEnabled else { return RedactedRequest(url: url, headerFields: headerFields, body: body, secrets: SecretValues()) }
        var secrets = secretValues(url: url, headerFields: headerFields, body: nil, learned: learned)
        let redactedBodyAndSecrets = body.map { redactCollectingSecrets(body: $0, contentType: headerFields[.contentType]) }
        if let found = redactedBodyAndSecrets?.secrets { secrets.formUnion(found) }
        let redactedURL = redact(target: url)
        var redactedBody = body
        if let body, !body.isEmpty, let redactedBodyAndSecrets {
            redactedBody = scrub(redactedBodyAndSecrets.body, secrets: secrets)
        }
        return RedactedRequest(
            url: scrub(target: redactedURL, secrets: secrets),
            headerFields: scrub(redact(headers: headerFields), secrets: secrets),
            body: redactedBody,
            // A response keys nothing: every credential cookie's value is scrubbed from it.
            secrets: secrets.union(secretCookieValues(of: headerFields))
        )
    }

    /// Redacts a response's secret places (`Set-Cookie`, secret headers, JSON fields), then
    /// scrubs from its headers and body every value found there or in the request.
    package func redact(responseHeaders: HTTPFields, body: Data, requestSecrets: SecretValues) -> (headerFields: HTTPFields, body: Data) {
        let result = redactCollectingSecrets(responseHeaders: responseHeaders, body: body, requestSecrets: requestSecrets)
        return (result.headerFields, result.body)
    }

    /// `redact(responseHeaders:body:requestSecrets:)`, also returning the secrets found in the
    /// response itself: values a later request may carry (`LearnedSecrets`).
    package func redactCollectingSecrets(
        responseHeaders: HTTPFields, body: Data, requestSecrets: SecretValues
    ) -> (headerFields: HTTPFields, body: Data, found: SecretValues) {
        guard isEnabled else { return (responseHeaders, body, SecretValues()) }
        let contentType = responseHeaders[.contentType]
        var found = secretValues(headers: responseHeaders)
        let (redacted, inBody) = redactCollectingSecrets(body: body, contentType: contentType)
        found.formUnion(inBody)
        let secrets = requestSecrets.union(found)
        let redactedBody = scrub(redacted, secrets: secrets)
        return (scrub(redact(headers: responseHeaders), secrets: secrets), redactedBody, found)
    }

    /// A stored interaction with the current rules applied, as `cassette redact` rewrites it:
    /// the same result as recording it again with these rules. The key is left to the caller,
    /// which knows the matching rules.
    package func redact(_ interaction: Interaction) -> Interaction {
        guard isEnabled else { return interaction }
        let request = redact(requestURL: interaction.url, headerFields: interaction.requestHeaders, body: interaction.requestBody)
        let response = redact(responseHeaders: interaction.responseHeaders, body: interaction.responseBody, requestSecrets: request.secrets)
        var result = interaction
        result.url = request.url
        result.requestHeaders = request.headerFields
        result.requestBody = request.body
        result.responseHeaders = response.headerFields
        if response.body != interaction.responseBody, result.responseHeaders[.contentLength] != nil {
            result.responseHeaders[.contentLength] = String(response.body.count)
        }
        result.responseBody = response.body
        // Noted by offset: a part the current rules changed keeps none (it replays `REDACTED`).
        result.secretEchoes = interaction.secretEchoes.filter { echo in
            echo.part == .body ? response.body == interaction.responseBody : response.headerFields == interaction.responseHeaders
        }
        return result
    }

    /// `redact(body:contentType:)` and `secretValues(body:contentType:)` together, walking a JSON
    /// body once instead of twice (the recording path does this for every response).
    func redactCollectingSecrets(body: Data, contentType: String?) -> (body: Data, secrets: SecretValues) {
        guard isEnabled, !body.isEmpty else { return (body, SecretValues()) }
        let type = contentType?.lowercased() ?? ""
        if type.contains("x-www-form-urlencoded") {
            return (redact(body: body, contentType: contentType), secretValues(body: body, contentType: contentType))
        }
        guard !jsonFields.isEmpty, Self.mayBeJSON(body, contentType: type) else { return (body, SecretValues()) }
        var secrets = SecretValues()
        let redacted = redact(jsonBody: body, collecting: &secrets) ?? body
        return (redacted, secrets)
    }
}
