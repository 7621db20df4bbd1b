extension APIError {
    /// A stable key for the failure, for apps to look up in their strings (the rulebook's
    /// `localizedKey`): one per ``Category``, so `error.auth.unauthorized` for a 401,
    /// `error.network.timeout` for a timeout and `error.network.failure` for a transport failure of
    /// no more specific kind. Keys never change once published; new categories get new keys.
    public var localizedKey: String { category.localizedKey }
}

extension APIError.Category {
    /// The category's key in an app's strings; see ``APIError/localizedKey``.
    public var localizedKey: String {
        switch self {
        case .invalidURL: "error.request.invalid_url"
        case .invalidResponse: "error.response.invalid"
        case .noData: "error.response.empty"
        case .decoding: "error.response.decoding"
        case .badRequest: "error.request.bad"
        case .unauthorized: "error.auth.unauthorized"
        case .forbidden: "error.auth.forbidden"
        case .notFound: "error.resource.not_found"
        case .rateLimited: "error.request.rate_limited"
        case .clientError: "error.request.rejected"
        case .serverError: "error.server.failure"
        case .timeout: "error.network.timeout"
        case .cannotConnect: "error.network.cannot_connect"
        case .dnsFailure: "error.network.dns"
        case .tls: "error.network.tls"
        case .connectionLost: "error.network.connection_lost"
        case .network: "error.network.failure"
        }
    }
}
