import GRPCCore

/// What a grpc-swift client got from one call: the response messages, the initial metadata, the
/// trailing metadata, and the status when it was not OK. Two outcomes are equal when a client could
/// not tell the calls apart.
struct GRPCCallOutcome: Equatable, Sendable, CustomStringConvertible {
    var messages: [ProtoMessage] = []
    var metadata: Metadata = [:]
    var trailingMetadata: Metadata = [:]
    var code: RPCError.Code?
    var statusMessage = ""

    mutating func fail(with error: RPCError) {
        code = error.code
        statusMessage = error.message
        // An error's metadata is the call's trailing metadata.
        trailingMetadata = error.metadata
    }

    /// The string values of `key` in the initial metadata.
    func header(_ key: String) -> [String] { Array(metadata[stringValues: key]) }

    /// The string values of `key` in the trailing metadata.
    func trailer(_ key: String) -> [String] { Array(trailingMetadata[stringValues: key]) }

    var description: String {
        let status = code.map { "\($0) \"\(statusMessage)\"" } ?? "OK"
        return "\(status), \(messages.count) message(s), metadata \(metadata), trailers \(trailingMetadata)"
    }
}
