import Foundation

/// `/api/echo`: reflects the request back, for checking what a client actually sent.
struct EchoResource {
    var routes: [Route] {
        [
            Route(nil, "/api/echo") { request in
                let body = request.body
                let text = body.isEmpty ? nil : String(validating: body, as: UTF8.self)
                let base64 = body.isEmpty ? nil : Data(body).base64EncodedString()
                return .json([
                    "method": .string(request.method.rawValue),
                    "path": .string(request.path),
                    "query": .array(request.query.map { [.string($0.name), .string($0.value)] }),
                    "headers": .array(request.headers.map { [.string($0.name), .string($0.value)] }),
                    "body": .string(text),
                    "bodyBase64": .string(base64),
                ])
            }
        ]
    }
}
