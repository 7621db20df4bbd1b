import NIOHTTP1

/// `/api/status/{code}`: answers with any status, for exercising client error handling.
struct StatusResource {
    var routes: [Route] {
        [
            Route(.GET, "/api/status/{code}") { request throws(APIFailure) in
                let status = try StatusCodeParameter.parse(request.pathParameters.first ?? "", name: "Status code")
                var headers: HTTPHeaders = [:]
                if status == .tooManyRequests || status == .serviceUnavailable {
                    headers.add(name: "Retry-After", value: "1")
                }
                if status == .noContent || status == .notModified {
                    return Response(status: status, headers: headers, body: nil)
                }
                return .json(
                    ["error": .string(Self.slug(status)), "message": .string("Sample status \(status.code)")],
                    status: status,
                    headers: headers
                )
            }
        ]
    }

    /// "Service Unavailable" becomes "service_unavailable"; codes without a phrase become "status_299".
    static func slug(_ status: HTTPResponseStatus) -> String {
        let words = status.reasonPhrase.lowercased().split { !$0.isLetter && !$0.isNumber }
        return words.isEmpty ? "status_\(status.code)" : words.joined(separator: "_")
    }
}
