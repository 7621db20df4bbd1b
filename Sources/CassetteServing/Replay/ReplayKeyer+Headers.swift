import CassetteKernel
import HTTPTypes
import NIOHTTP1
import WellPlateCore

/// The keyer's header names applied to NIO's request heads: which of a request's headers key it
/// and which are secret is the keyer's to say (`ReplayKeyer`); this only reads them out.
extension ReplayKeyer {
    /// Whether the request carries a header that changes how it is keyed or logged: a secret one
    /// (its value is scrubbed from the target) or a keyed one. Nearly every request carries none
    /// and is then keyed by method and target alone. One check for both, by NIO's ASCII
    /// case-insensitive compare: names that are not ASCII never get past the request parser.
    package func carriesKeyingHeaders(_ head: HTTPRequestHead) -> Bool {
        keyingHeaderNames.contains(where: head.headers.contains(name:)) || carriesBasicCredentials(head)
    }

    /// Basic credentials under a header no rule names: secret all the same (`Redactor.isSecret`).
    private func carriesBasicCredentials(_ head: HTTPRequestHead) -> Bool {
        redactor.isEnabled && head.headers.contains { Redactor.isBasicCredential($0.value) }
    }

    /// The request's `X-APOLLO-OPERATION-NAME` while GraphQL keying is on: it names an operation
    /// its body or parameters leave unnamed (a hash-only request), so it takes part in the key.
    package func graphQLOperationName(of head: HTTPRequestHead) -> String? {
        rules.graphQLPaths.isEmpty ? nil : head.headers.first(name: GraphQLOperation.operationNameHeader)
    }

    /// The request's keyed header fields (and its Content-Type), or `nil` when it carries none.
    package func keyedFields(of head: HTTPRequestHead) -> HTTPFields? {
        guard keyedHeaderNames.contains(where: head.headers.contains(name:)) else { return nil }
        var fields = HTTPFields()
        for name in keyedHeaderNames {
            guard let fieldName = HTTPField.Name(name) else { continue }
            for value in head.headers[name] { fields.append(RawHeaderBytes.field(name: fieldName, value: value)) }
        }
        if let contentType = head.headers.first(name: "content-type") { fields[.contentType] = contentType }
        return fields
    }

    /// The request's credential and cookie headers, whose values are scrubbed from its target
    /// and body; empty (without allocating) for the usual request that has none.
    package func secretHeaders(of head: HTTPRequestHead) -> HTTPFields {
        var fields = HTTPFields()
        for header in head.headers where redactor.isSecret(name: header.name.lowercased(), value: header.value) {
            if let name = HTTPField.Name(header.name) { fields.append(RawHeaderBytes.field(name: name, value: header.value)) }
        }
        return fields
    }

    /// The request's target as logged: secrets redacted, including its secret headers' values.
    package func logTarget(of head: HTTPRequestHead) -> String {
        redactedTarget(head.uri, secretHeaders: secretHeaders(of: head))
    }
}
