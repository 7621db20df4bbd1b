import NIOHTTP1

/// `/api/flaky`: fails the first N requests per key, for exercising client retries.
struct FlakyResource {
    let counter: FlakyCounter

    var routes: [Route] {
        let counter = self.counter
        let flaky: RouteHandler = { request throws(APIFailure) in
            // Validate everything before counting, so a rejected request is not an attempt.
            let key = request.queryValue("key") ?? "default"
            let failures = try request.nonNegativeInteger("failures", default: 1)
            let status = try StatusCodeParameter.parse(request.queryValue("status") ?? "503", name: "Query parameter \"status\"")
            let retryAfter = try request.nonNegativeInteger("retryAfter")
            let attempt = counter.increment(key)
            guard attempt > failures else {
                var failure = APIFailure(
                    status: status,
                    code: "unavailable",
                    message: "Attempt \(attempt) of key \(key) fails on purpose"
                )
                if let retryAfter { failure.headers.add(name: "Retry-After", value: String(retryAfter)) }
                throw failure
            }
            return .json(["attempts": .integer(attempt), "key": .string(key)])
        }
        let methods: [HTTPMethod] = [.GET, .POST, .PUT, .PATCH, .DELETE]
        return methods.map { Route($0, "/api/flaky", handler: flaky) } + [
            Route(.GET, "/api/flaky/count") { request in
                let key = request.queryValue("key") ?? "default"
                return .json(["attempts": .integer(counter.count(key)), "key": .string(key)])
            }
        ]
    }
}

/// A status code taken from the request. Informational codes (1xx) are refused: a client reads
/// them as interim responses and would wait for a final one that never comes.
enum StatusCodeParameter {
    static let allowed = 200...599

    static func parse(_ raw: String, name: String) throws(APIFailure) -> HTTPResponseStatus {
        guard let code = Int(raw), allowed.contains(code) else {
            throw .badRequest("\(name) must be an integer from 200 to 599 (1xx codes are interim responses), got \"\(raw)\"")
        }
        return HTTPResponseStatus(statusCode: code)
    }
}
