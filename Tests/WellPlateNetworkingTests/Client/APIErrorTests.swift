import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

@Suite("APIError classification and messages")
struct APIErrorTests {
    @Test(arguments: [
        (TransportError.Kind.timeout, APIError.Category.timeout),
        (.cannotConnect, .cannotConnect),
        (.dnsFailure, .dnsFailure),
        (.tls, .tls),
        (.connectionLost, .connectionLost),
        (.invalidURL, .invalidURL),
        (.other, .network),
    ])
    func transportKindsHaveTheirOwnCategory(kind: TransportError.Kind, category: APIError.Category) {
        let error = APIError.networkError(TransportError(kind, "GET http://127.0.0.1:1/: failed"))
        #expect(error.category == category)
        #expect(error.statusCode == nil)
        #expect(error.localizedDescription.contains("GET http://127.0.0.1:1/"))
    }

    @Test func everyCaseHasAnActionableDescription() {
        let errors: [APIError] = [
            .invalidURL, .invalidResponse, .noData,
            .decodingError(ResponseDecodingError(typeName: "User", path: "$.id", reason: "expected Int")),
            .serverError(statusCode: 401, message: nil),
            .networkError(TransportError(.timeout, "GET http://x/: timed out")),
        ]
        for error in errors {
            let text = error.localizedDescription
            #expect(text.count > 30, "\(error) has a terse description: \(text)")
        }
        #expect(APIError.serverError(statusCode: 401, message: nil).localizedDescription.contains("Authorization"))
    }

    @Test func idempotencyFollowsRFC9110() {
        #expect(HTTPMethod.allCases.filter(\.isIdempotent) == [.get, .put, .delete, .head, .options])
        #expect(HTTPMethod(token: "patch") == .patch)
        #expect(HTTPMethod(token: "PROPFIND") == nil)
    }
}
