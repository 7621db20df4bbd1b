import HTTPTypes

/// Recordings of one API repeat the same header sets (the client's request headers, the server's
/// response headers but for `Content-Length`); sharing one copy of each keeps a large cassette's
/// memory close to its body bytes. `Interaction.response` puts `Content-Length` back.
struct HeaderPool {
    private var sets: [HTTPFields: HTTPFields] = [:]

    mutating func compact(_ interaction: inout Interaction) {
        interaction.requestHeaders = shared(interaction.requestHeaders)
        var response = interaction.responseHeaders
        if interaction.method != .head, response[.contentLength] == String(interaction.responseBody.count) {
            response[.contentLength] = nil
        }
        interaction.responseHeaders = shared(response)
    }

    private mutating func shared(_ fields: HTTPFields) -> HTTPFields {
        if let existing = sets[fields] { return existing }
        sets[fields] = fields
        return fields
    }
}
