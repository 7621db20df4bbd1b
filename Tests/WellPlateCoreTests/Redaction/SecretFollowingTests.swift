import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

@Suite("Redaction that follows the secret")
struct SecretFollowingTests {
    let redactor = Redactor.default

    @Test func cookiesKeepTheirNamesAndAttributes() {
        let headers: HTTPFields = [.cookie: "session=abc123; theme=dark", .setCookie: "session=abc123; Path=/; HttpOnly; SameSite=Lax"]
        let redacted = redactor.redact(headers: headers)
        #expect(redacted[.cookie] == "session=REDACTED; theme=dark")
        #expect(redacted[.setCookie] == "session=REDACTED; Path=/; HttpOnly; SameSite=Lax")
        let all = Redactor(cookies: .all).redact(headers: headers)
        #expect(all[.cookie] == "session=REDACTED; theme=REDACTED")
    }

    /// `foo=bar` read back by the client that set it must replay as `foo=bar`; a session id, or
    /// any value no person wrote, is a credential.
    @Test(arguments: [
        ("foo", "bar", false), ("stale_after", "never", false), ("fake", "fake_value", false), ("theme", "\"dark mode\"", false),
        ("lang", "en-GB", false), ("build", "v2-assets-2024-06-15", false), ("cookie", "value", false), ("Cookies", "1", false),
        ("auth_cookie", "1", true), ("session-cookie", "x", true),
        ("sessionid", "abc", true), ("PHPSESSID", "x", true), ("connect.sid", "s%3Aabc", true), ("remember_token", "1", true),
        ("csrftoken", "x", true), ("jwt", "x", true), ("auth", "1", true), ("_gh_sess", "x", true), ("logged_in", "yes", true),
        ("prefs", "a8F3kQ9zL2mX7pW4vB6n", true), ("data", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlMTIzNDU2", true),
    ])
    func aCookieIsACredentialByItsNameOrAMachineMadeValue(name: String, value: String, secret: Bool) {
        #expect(SecretCookies.isSecret(name: name, value: value) == secret)
        let expected = secret ? "\(name)=REDACTED; Path=/" : "\(name)=\(value); Path=/"
        #expect(redactor.redact(headers: [.setCookie: "\(name)=\(value); Path=/"])[.setCookie] == expected)
        #expect(Redactor(cookies: .all).redact(headers: [.setCookie: "\(name)=\(value); Path=/"])[.setCookie] == "\(name)=REDACTED; Path=/")
    }

    /// A replaying client carries what the recording set: a credential cookie a response set as
    /// `REDACTED`. Such a value is followed into the rest of the request only when it is
    /// token-shaped; a short one (`never`, `abc`) may stand there by coincidence, and would key
    /// the request differently on replay, where the cookie no longer holds it. A cookie the client
    /// made up itself (`pin=1234`) it sends the same on replay: followed whatever its length.
    @Test(arguments: [Redactor.default, Redactor(cookies: .all)])
    func aShortCookieValueAResponseSetIsNotFollowedIntoTheRequest(redactor: Redactor) {
        let token = "q8Zr2xN4vT7kP1mW9sD3fH6j"
        let learned = LearnedSecrets()
        var set = HTTPFields()
        for cookie in ["stale_after=never", "sid=abc", "session_token=\(token)"] { set.append(HTTPField(name: .setCookie, value: cookie + "; Path=/")) }
        learned.noteSetByResponse(redactor.redactedSetCookieValues(set))
        let cookies: HTTPFields = [.cookie: "stale_after=never; sid=abc; session_token=\(token); pin=1234"]
        let recording = redactor.redact(requestURL: "/items/never/abc/1234/\(token)", headerFields: cookies, body: nil, learned: learned)
        #expect(recording.url == "/items/never/abc/REDACTED/REDACTED")
        // Replayed, the jar holds what the recording stored (`sid=REDACTED`), and the client's own.
        let stored = redactor.redact(headers: set)[values: .setCookie].map { $0.split(separator: ";")[0] }
        let jar = (stored + ["pin=1234"]).joined(separator: "; ")
        let replaying = redactor.redact(
            requestURL: "/items/never/abc/1234/REDACTED", headerFields: [.cookie: jar], body: nil, learned: LearnedSecrets())
        #expect(replaying.url == recording.url)
        // A response echoing the short credential is still scrubbed: it keys nothing.
        let response = redactor.redact(responseHeaders: [:], body: Data(#"{"sid": "abc"}"#.utf8), requestSecrets: recording.secrets)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"sid": "REDACTED"}"#)
    }

    /// `?Set-Cookie=sid%3D1234`: a client that writes a cookie into a query value escapes its `=`.
    @Test(arguments: [
        ("/set?Set-Cookie=sid%3D1234", "/set?Set-Cookie=sid%3DREDACTED"),
        ("/set?c=sid%3d1234%3B%20Path%3D%2F", "/set?c=sid%3dREDACTED%3B%20Path%3D%2F"),
        ("/p/x%2F1234", "/p/x%2FREDACTED"),
        ("/set?c=sid%3D12345", "/set?c=sid%3D12345"),
        ("/set?c=ab%411234", "/set?c=ab%411234"),
    ])
    func shortSecretsAreFoundAfterAnEscapedSeparator(target: String, expected: String) {
        #expect(redactor.scrub(target: target, secrets: SecretValues(["1234"])) == expected)
    }

    @Test func jsonFieldsAreReplacedInPlaceKeepingEveryOtherByte() {
        let body = Data(#"{ "z": 1.50, "password" : "p\u0041ss\/word",  "nested": {"Refresh_Token": {"a": [1, 2]}, "e": "\u00e9"}, "n": 1e3 }"#.utf8)
        let redacted = redactor.redact(body: body, contentType: "application/json")
        #expect(
            String(decoding: redacted, as: UTF8.self)
                == #"{ "z": 1.50, "password" : "REDACTED",  "nested": {"Refresh_Token": "REDACTED", "e": "\u00e9"}, "n": 1e3 }"#)
        // Already redacted: unchanged, byte for byte.
        #expect(redactor.redact(body: redacted, contentType: "application/json") == redacted)
        // Not JSON: unchanged.
        let broken = Data(#"{"password": "x""#.utf8)
        #expect(redactor.redact(body: broken, contentType: "application/json") == broken)
    }

    @Test func basicCredentialsAreDecodedAndFollowed() {
        let credential = Data("bob:hunter22".utf8).base64EncodedString()
        let request = redactor.redact(
            requestURL: "https://api.test/users/hunter22/bob%3Ahunter22?x=hunter22", headerFields: [.authorization: "Basic \(credential)"],
            body: Data(#"{"echo":"bob:hunter22"}"#.utf8))
        #expect(request.url == "https://api.test/users/REDACTED/REDACTED?x=REDACTED")
        #expect(request.headerFields[.authorization] == "REDACTED")
        #expect(String(decoding: request.body ?? Data(), as: UTF8.self) == #"{"echo":"REDACTED"}"#)
        #expect(request.secrets.values.isSuperset(of: ["hunter22", "bob:hunter22", credential]))
    }

    @Test(arguments: [
        ("/pins/1234/reset", "/pins/REDACTED/reset"),
        ("pin is 1234.", "pin is REDACTED."),
        ("12345 and id-1234x and 1234_5", "12345 and id-1234x and 1234_5"),
        ("\"1234\"", "\"REDACTED\""),
    ])
    func shortSecretsAreScrubbedOnlyAsWholeTokens(text: String, expected: String) {
        #expect(redactor.scrub(text, secrets: SecretValues(["1234"])) == expected)
    }

    @Test func longSecretsAreScrubbedAnywhere() {
        #expect(redactor.scrub("xxabcdefgh12yy", secrets: SecretValues(["abcdefgh12"])) == "xxREDACTEDyy")
        #expect(redactor.scrub("a%2fb%2fsecret a%2Fb%2Fsecret", secrets: SecretValues(["a/b/secret"])) == "REDACTED REDACTED")
    }

    @Test(arguments: [
        ("pin is 1234.", "pin is REDACTED."),
        ("12345 and id-1234x and 1234_5", "12345 and id-1234x and 1234_5"),
        ("1234", "REDACTED"),
        ("xxabcdefgh12yy", "xxREDACTEDyy"),
    ])
    func bodiesAreScrubbedLikeText(text: String, expected: String) {
        let secrets = SecretValues(["1234", "abcdefgh12"])
        #expect(redactor.scrub(Data(text.utf8), secrets: secrets) == Data(expected.utf8))
    }

    /// A large download recorded with a credential in its request: when the body does not repeat
    /// the credential, the stored body is the very buffer that was received (that no transient
    /// copy is made on the way is measured by Benchmarks/streaming.sh, not here).
    @Test func aResponseBodyWithoutTheRequestsSecretsIsKeptNotCopied() {
        let secrets = redactor.secretValues(url: "https://api.test/file", headerFields: [.authorization: "Bearer tok-0123456789abcdef"], body: nil)
        #expect(!secrets.isEmpty)
        let body = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let redacted = redactor.redact(responseHeaders: [.contentType: "application/octet-stream"], body: body, requestSecrets: secrets)
        #expect(redacted.body == body)
        let sameBuffer = body.withUnsafeBytes { original in redacted.body.withUnsafeBytes { $0.baseAddress == original.baseAddress } }
        #expect(sameBuffer)
        let echoing = body + Data(" tok-0123456789abcdef".utf8)
        #expect(redactor.redact(responseHeaders: [:], body: echoing, requestSecrets: secrets).body == body + Data(" REDACTED".utf8))
    }

    @Test func responseSecretsAreScrubbedFromTheWholeResponse() {
        let interaction = Interaction(
            cassette: "c", method: .post, url: "https://api.test/login", key: "k",
            requestHeaders: [.contentType: "application/json"], requestBody: Data(#"{"user":"bob"}"#.utf8),
            statusCode: 200,
            responseHeaders: [
                .setCookie: "sid=cookie-value-77; Path=/; HttpOnly", HTTPField.Name("X-Refresh")!: "rt-0123456789", .contentType: "application/json",
                .contentLength: "80",
            ],
            responseBody: Data(#"{"refresh_token": "rt-0123456789", "sid_echo": "cookie-value-77"}"#.utf8),
            recordedAt: Date(), duration: .zero
        )
        let redacted = redactor.redact(interaction)
        #expect(redacted.responseHeaders[.setCookie] == "sid=REDACTED; Path=/; HttpOnly")
        #expect(redacted.responseHeaders[HTTPField.Name("X-Refresh")!] == "REDACTED")
        let body = #"{"refresh_token": "REDACTED", "sid_echo": "REDACTED"}"#
        #expect(String(decoding: redacted.responseBody, as: UTF8.self) == body)
        #expect(redacted.responseHeaders[.contentLength] == String(body.utf8.count))
        // Applying the rules again changes nothing.
        #expect(redactor.redact(redacted) == redacted)
    }

    @Test(arguments: [
        ("http://alice:pw-123456@api.test/x?a=1", "http://REDACTED@api.test/x?a=1"),
        ("https://ghp_tokenAsUser99@api.test/", "https://REDACTED@api.test/"),
        ("http://api.test/users/a@b.test", "http://api.test/users/a@b.test"),
        ("/relative/a@b", "/relative/a@b"),
    ])
    func userinfoIsReplacedWhole(target: String, expected: String) {
        #expect(redactor.redact(target: target) == expected)
        #expect(redactor.redact(requestURL: target, headerFields: [:], body: nil).url == expected)
    }

    @Test func basicCredentialsUnderAnyHeaderNameAreSecret() {
        let credential = Data("carol:pw-77aa88".utf8).base64EncodedString()
        let headers: HTTPFields = [
            HTTPField.Name("X-Upstream-Auth")!: "Basic \(credential)", HTTPField.Name("X-Note")!: "basic words, not credentials",
        ]
        let request = redactor.redact(requestURL: "/echo?p=pw-77aa88", headerFields: headers, body: nil)
        #expect(request.headerFields[HTTPField.Name("X-Upstream-Auth")!] == "REDACTED")
        #expect(request.headerFields[HTTPField.Name("X-Note")!] == "basic words, not credentials")
        #expect(request.url == "/echo?p=REDACTED")
    }
}
