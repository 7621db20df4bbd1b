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

    @Test func everyCategoryHasAStableLocalizationKeyOfItsOwn() {
        let keys = APIError.Category.allCases.map(\.localizedKey)
        #expect(Set(keys).count == APIError.Category.allCases.count, "two categories share a key: \(keys)")
        for (category, key) in zip(APIError.Category.allCases, keys) {
            #expect(key.wholeMatch(of: /error(\.[a-z_]+){2}/) != nil, "\(category): \(key)")
        }
        // The keys an app's strings hold; changing one breaks every app's lookup.
        let published: [APIError.Category: String] = [
            .invalidURL: "error.request.invalid_url", .invalidResponse: "error.response.invalid", .noData: "error.response.empty",
            .decoding: "error.response.decoding", .badRequest: "error.request.bad", .unauthorized: "error.auth.unauthorized",
            .forbidden: "error.auth.forbidden", .notFound: "error.resource.not_found", .rateLimited: "error.request.rate_limited",
            .clientError: "error.request.rejected", .serverError: "error.server.failure", .timeout: "error.network.timeout",
            .cannotConnect: "error.network.cannot_connect", .dnsFailure: "error.network.dns", .tls: "error.network.tls",
            .connectionLost: "error.network.connection_lost", .network: "error.network.failure",
        ]
        #expect(Dictionary(uniqueKeysWithValues: zip(APIError.Category.allCases, keys)) == published)
    }

    @Test func anErrorTakesTheKeyOfItsCategory() {
        #expect(APIError.serverError(statusCode: 401, message: nil).localizedKey == "error.auth.unauthorized")
        #expect(APIError.networkError(TransportError(.timeout, "GET http://x/: timed out")).localizedKey == "error.network.timeout")
        #expect(APIError.networkError(TransportError(.other, "GET http://x/: failed")).localizedKey == "error.network.failure")
        #expect(APIError.networkError(CocoaError(.fileNoSuchFile)).localizedKey == "error.network.failure")
        #expect(APIError.serverError(statusCode: 503, message: nil).localizedKey == "error.server.failure")
        #expect(APIError.decodingError(ResponseDecodingError(typeName: "User", path: "$", reason: "x")).localizedKey == "error.response.decoding")
    }

    @Test func idempotencyFollowsRFC9110() {
        #expect(HTTPMethod.allCases.filter(\.isIdempotent) == [.get, .put, .delete, .head, .options])
        #expect(HTTPMethod(token: "patch") == .patch)
        #expect(HTTPMethod(token: "PROPFIND") == nil)
    }
}
