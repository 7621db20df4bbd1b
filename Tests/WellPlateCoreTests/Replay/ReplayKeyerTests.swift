import Foundation
import HTTPTypes
import Testing

@testable import WellPlateCore

/// The keying contract: a request keys the same whether it arrives whole (a client's
/// `TransportRequest`, as recorded) or as the proxy holds it (method, target, headers, body).
@Suite("Replay keyer")
struct ReplayKeyerTests {
    let keyer = ReplayKeyer(redactor: .default, rules: MatchingRules(matchedHeaders: ["X-Tenant"]))
    let base = "http://127.0.0.1:8081"

    @Test func namesTheKeyedAndSecretHeadersLowercased() {
        #expect(keyer.keyedHeaderNames.contains("x-tenant"))
        #expect(keyer.keyedHeaderNames.contains("if-none-match"))
        #expect(keyer.keyingHeaderNames.contains("authorization"))
        #expect(keyer.keyingHeaderNames.contains("x-tenant"))
        #expect(keyer.keyingHeaderNames == keyer.keyingHeaderNames.sorted())
        #expect(keyer.isSecretHeader("Authorization") && !keyer.isSecretHeader("X-Tenant"))
        let disabled = ReplayKeyer(redactor: .disabled, rules: .default)
        #expect(!disabled.keyingHeaderNames.contains("authorization"))
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let method: HTTPMethod
        let target: String
        var headers: HTTPFields = [:]
        var body: Data?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "plain GET", method: .get, target: "/v1/meals?limit=2&offset=0"),
        Case(name: "secret query value", method: .get, target: "/v1/meals?api_key=abc123&limit=2"),
        Case(name: "credential repeated in the path", method: .get, target: "/v1/tokens/tok-9f8e7d6c", headers: [.authorization: "Bearer tok-9f8e7d6c"]),
        Case(name: "keyed header", method: .get, target: "/v1/me", headers: [HTTPField.Name("X-Tenant")!: "acme"]),
        Case(name: "conditional header", method: .get, target: "/v1/me", headers: [.ifNoneMatch: "\"v7\""]),
        Case(
            name: "JSON body with a secret field", method: .post, target: "/v1/login", headers: [.contentType: "application/json"],
            body: Data(#"{"user":"ann","password":"hunter2"}"#.utf8)),
        Case(
            name: "form body", method: .post, target: "/v1/meals", headers: [.contentType: "application/x-www-form-urlencoded"],
            body: Data("name=soup&kcal=120".utf8)),
    ]

    @Test(arguments: cases)
    func aTargetKeysLikeTheWholeRequest(_ example: Case) throws {
        let whole = TransportRequest(
            method: example.method, url: try #require(URL(string: base + example.target)), headerFields: example.headers, body: example.body)
        let expected = keyer.redactedWithKey(whole).key
        let secretHeaders = HTTPFields(example.headers.filter { keyer.isSecretHeader($0.name.rawName) })
        let keyed = HTTPFields(example.headers.filter { keyer.keyedHeaderNames.contains($0.name.canonicalName) })
        var keyedFields = keyed
        if !keyed.isEmpty, let contentType = example.headers[.contentType] { keyedFields[.contentType] = contentType }
        let byTarget = keyer.key(
            method: example.method, target: example.target, contentType: example.headers[.contentType], body: example.body, secretHeaders: secretHeaders,
            keyedFields: keyedFields)
        #expect(byTarget.rawValue == expected.rawValue)
        if example.body == nil && keyed.isEmpty && secretHeaders.isEmpty {
            #expect(keyer.keyText(method: example.method, target: example.target) == expected.rawValue)
        }
    }

    @Test func theLogTargetHidesSecretsAndOnlyThoseThatOccur() {
        let secret: HTTPFields = [.authorization: "Bearer tok-9f8e7d6c"]
        #expect(!keyer.redactedTarget("/v1/meals?api_key=abc123").contains("abc123"))
        #expect(!keyer.redactedTarget("/v1/tokens/tok-9f8e7d6c", secretHeaders: secret).contains("tok-9f8e7d6c"))
        #expect(keyer.secretsOccur(in: "/v1/tokens/tok-9f8e7d6c", secretHeaders: secret))
        #expect(!keyer.secretsOccur(in: "/v1/meals", secretHeaders: secret))
        #expect(!keyer.secretsOccur(in: "/v1/tokens/tok-9f8e7d6c", secretHeaders: [:]))
    }
}
