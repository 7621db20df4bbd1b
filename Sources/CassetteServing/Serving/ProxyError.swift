import CassetteKernel
import WellPlateCore

/// Why the proxy could not start, or could not open a cassette for a session: the one error
/// type the proxy throws to its callers. The command line turns it into its own message (with the
/// flag that fixes a store failure); a session's request answers it as JSON (`answer`).
package struct ProxyError: Error, CustomStringConvertible {
    package enum Kind: Sendable {
        /// The store or the cassette could not be opened or read.
        case store(CassetteStoreError)
        /// The flags or files given cannot work together: the command line's status 2.
        case usage
        /// Something failed at run time: status 1.
        case failure
    }

    package let kind: Kind
    package let message: String
    /// The status and code a session's request is answered with.
    package let status: Int
    package let code: String
    /// What a session's request is told, when it differs from `message` (which speaks of flags).
    package let requestMessage: String?

    package init(_ kind: Kind, _ message: String, status: Int = 500, code: String = "internal_error", requestMessage: String? = nil) {
        self.kind = kind
        self.message = message
        self.status = status
        self.code = code
        self.requestMessage = requestMessage
    }

    package static func usage(_ message: String, status: Int = 400, code: String = "bad_request", requestMessage: String? = nil) -> ProxyError {
        ProxyError(.usage, message, status: status, code: code, requestMessage: requestMessage)
    }

    package static func failure(_ message: String, status: Int = 500, code: String = "internal_error", requestMessage: String? = nil) -> ProxyError {
        ProxyError(.failure, message, status: status, code: code, requestMessage: requestMessage)
    }

    package static func store(_ error: CassetteStoreError, cassette: String) -> ProxyError {
        ProxyError(
            .store(error), error.message, status: 500, code: "store_failed",
            requestMessage: "cassette \"\(cassette)\" could not be opened: \(error.message)")
    }

    package var description: String { message }

    /// As a session's request answers it.
    package var requestError: ProxyRequestError {
        ProxyRequestError(status: status, code: code, message: requestMessage ?? message)
    }
}
