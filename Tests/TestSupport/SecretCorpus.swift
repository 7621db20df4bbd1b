import CassetteTools
import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

/// Interactions holding secrets that redaction missed, and interactions of ordinary API data
/// (ids, hashes of public content, UUIDs, dates) that no audit may flag. Token values are made
/// at run time from a seeded generator, so this source file holds no secret-shaped string.
package enum SecretCorpus {
    package struct Case: Sendable {
        package init(name: String, interaction: Interaction, rule: String? = nil, place: String? = nil, severity: AuditSeverity? = nil) {
            self.name = name
            self.interaction = interaction
            self.rule = rule
            self.place = place
            self.severity = severity
        }

        package let name: String
        package let interaction: Interaction
        /// For secrets: the rule and place the audit must report (nil for ordinary data).
        package let rule: String?
        package let place: String?
        package let severity: AuditSeverity?
    }

    /// Deterministic letters and digits.
    package struct Generator {
        package init(state: UInt64) {
            self.state = state
        }

        var state: UInt64

        package mutating func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }

        package mutating func string(_ count: Int, from alphabet: String = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") -> String {
            let characters = Array(alphabet)
            return String((0..<count).map { _ in characters[Int(next() % UInt64(characters.count))] })
        }
    }

    package static func json(_ text: String) -> Data { Data(text.utf8) }

    package static func make(
        _ target: String, method: HTTPMethod = .get, requestHeaders: HTTPFields = [:], requestBody: Data? = nil,
        responseHeaders: HTTPFields = [.contentType: "application/json"], body: String = #"{"ok":true}"#
    ) -> Interaction {
        Recordings.make(method, target, requestHeaders: requestHeaders, requestBody: requestBody, responseHeaders: responseHeaders, body: Data(body.utf8))
    }

    package static func secrets() -> [Case] {
        var random = Generator(state: 13)
        let upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
        let hex = "0123456789abcdef"
        let base64url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + "eyJ" + random.string(40, from: base64url) + "." + random.string(43, from: base64url)
        let pem = "-----BEGIN RSA PRIVATE KEY-----\\n" + random.string(64) + "\\n" + random.string(64) + "\\n-----END RSA PRIVATE KEY-----"
        let pemText = "-----BEGIN PRIVATE KEY-----\n" + random.string(64) + "\n" + random.string(64) + "\n-----END PRIVATE KEY-----\n"
        let session = random.string(32)
        let basic = Data("deploy:\(random.string(14))".utf8).base64EncodedString()
        return [
            Case(
                name: "JWT in a JSON field", interaction: make("/api/session", body: #"{"data": {"refresh_token": "\#(jwt)"}}"#), rule: "jwt",
                place: "response body $.data.refresh_token", severity: .high),
            Case(
                name: "AWS access key in JSON", interaction: make("/api/config", body: #"{"aws": {"accessKeyId": "AKIA\#(random.string(16, from: upper))"}}"#),
                rule: "aws-access-key", place: "response body $.aws.accessKeyId", severity: .high),
            Case(
                name: "GitHub token in a request header",
                interaction: make("/api/repos", requestHeaders: [HTTPField.Name("X-Upstream-Credential")!: "ghp_" + random.string(36)]), rule: "github-token",
                place: "request header X-Upstream-Credential", severity: .high),
            Case(
                name: "GitLab token in a query parameter", interaction: make("/api/projects?private_token=glpat-\(random.string(20))"), rule: "gitlab-token",
                place: "request query parameter private_token", severity: .high),
            Case(
                name: "Slack token in a text body",
                interaction: make(
                    "/api/notify", responseHeaders: [.contentType: "text/plain"],
                    body: "posting with xoxb-\(random.string(12, from: "0123456789"))-\(random.string(24))\n"), rule: "slack-token", place: "response body",
                severity: .high),
            Case(
                name: "Stripe key in a form body",
                interaction: make(
                    "/api/charge", method: .post, requestHeaders: [.contentType: "application/x-www-form-urlencoded"],
                    requestBody: Data("amount=100&stripe=sk_live_\(random.string(24))".utf8)), rule: "stripe-key", place: "request body parameter stripe",
                severity: .high),
            Case(
                name: "Google API key in the URL", interaction: make("/api/maps?k=AIza\(random.string(35))"), rule: "google-api-key",
                place: "request query parameter k", severity: .high),
            Case(
                name: "PEM private key in JSON", interaction: make("/api/certs", body: #"{"cert": {"pem": "\#(pem)"}}"#), rule: "private-key",
                place: "response body $.cert.pem", severity: .high),
            Case(
                name: "PEM private key in a text body", interaction: make("/api/keys", responseHeaders: [.contentType: "text/plain"], body: pemText),
                rule: "private-key", place: "response body", severity: .high),
            Case(
                name: "Password in a URL",
                interaction: make("/api/settings", body: #"{"database": "postgres://admin:\#(random.string(12))@db.internal:5432/app"}"#),
                rule: "url-credentials", place: "response body $.database", severity: .high),
            Case(
                name: "Session token in a custom header", interaction: make("/api/me", requestHeaders: [HTTPField.Name("X-Session-Token")!: session]),
                rule: "keyword", place: "request header X-Session-Token", severity: .high),
            Case(
                name: "Password field",
                interaction: make(
                    "/api/login", method: .post, requestHeaders: [.contentType: "application/json"],
                    requestBody: json(#"{"username": "bob", "password": "hunter2"}"#)), rule: "keyword", place: "request body $.password", severity: .high),
            Case(
                name: "Basic credentials left in Authorization", interaction: make("/api/admin", requestHeaders: [.authorization: "Basic \(basic)"]),
                rule: "authorization", place: "request header Authorization", severity: .high),
            Case(
                name: "Cookie left in the request", interaction: make("/api/cart", requestHeaders: [.cookie: "sid=\(random.string(24))"]), rule: "cookie",
                place: "request cookie sid", severity: .high),
            Case(
                name: "npm token", interaction: make("/api/publish", body: #"{"publish": {"with": "npm_\#(random.string(36))"}}"#), rule: "npm-token",
                place: "response body $.publish.with", severity: .high),
            Case(
                name: "OpenAI key", interaction: make("/api/llm", body: #"{"upstream": "sk-proj-\#(random.string(40))"}"#), rule: "openai-key",
                place: "response body $.upstream", severity: .high),
            Case(
                name: "Bearer token quoted in a log body",
                interaction: make(
                    "/api/logs", responseHeaders: [.contentType: "text/plain"], body: "sent Authorization: Bearer \(random.string(40, from: base64url))\n"),
                rule: "authorization", place: "response body", severity: .high),
            Case(
                name: "API key assignment in a text body",
                interaction: make("/api/env", responseHeaders: [.contentType: "text/plain"], body: "region=eu\napi_key=\(random.string(28))\n"),
                rule: "keyword", place: "response body (api_key=...)", severity: .high),
            Case(
                name: "Client secret in a nested JSON field",
                interaction: make("/api/oauth/apps", body: #"{"apps": [{"client_secret": "\#(random.string(30))"}]}"#), rule: "keyword",
                place: "response body $.apps[0].client_secret", severity: .high),
            Case(
                name: "High-entropy base64 blob",
                interaction: make(
                    "/api/blob", body: #"{"blob": "\#(random.string(44, from: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"))"}"#),
                rule: "high-entropy", place: "response body $.blob", severity: .medium),
            Case(
                name: "Hex signing key in a secret-looking field",
                interaction: make("/api/webhooks", body: #"{"signing_key": "\#(random.string(64, from: hex))"}"#), rule: "keyword",
                place: "response body $.signing_key", severity: .high),
            Case(
                name: "Twilio API key", interaction: make("/api/sms", body: #"{"twilio": "SK\#(random.string(32, from: hex))"}"#), rule: "twilio-key",
                place: "response body $.twilio", severity: .medium),
            Case(
                name: "E-mail address", interaction: make("/api/users/7", body: #"{"contact": "jane.doe@example.org"}"#), rule: "email",
                place: "response body $.contact", severity: .low),
            Case(
                name: "Phone number", interaction: make("/api/users/8", body: #"{"contact": "+44 20 7946 0958"}"#), rule: "phone",
                place: "response body $.contact", severity: .low),
        ]
    }

    package static func ordinary() -> [Case] {
        var random = Generator(state: 7)
        let hex = "0123456789abcdef"
        func uuid() -> String {
            [8, 4, 4, 4, 12].map { random.string($0, from: hex) }.joined(separator: "-")
        }
        let sha256 = random.string(64, from: hex)
        let commit = random.string(40, from: hex)
        let items: [(String, Interaction)] = [
            (
                "ids and UUIDs",
                make(
                    "/api/users/42", responseHeaders: [.contentType: "application/json", HTTPField.Name("X-Request-Id")!: uuid()],
                    body: #"{"id": 42, "user_id": "usr_8f3a2b", "uuid": "\#(uuid())", "request_id": "\#(uuid())"}"#)
            ),
            (
                "hashes of public content",
                make(
                    "/api/files/readme", responseHeaders: [.contentType: "application/json", .eTag: "\"\(random.string(32, from: hex))\""],
                    body: #"{"name": "README.md", "sha256": "\#(sha256)", "size": 1024}"#)
            ),
            ("a commit", make("/api/builds/9", body: #"{"build": 9, "commit": "\#(commit)", "branch": "main", "status": "passed"}"#)),
            ("nutrition data", make("/api/nutrition/apple", body: #"{"name": "Apple", "calories": 52, "tags": ["fruit", "red"], "per": "100 g"}"#)),
            (
                "token metadata without the token",
                make(
                    "/api/oauth/token", method: .post, body: #"{"access_token": "REDACTED", "token_type": "Bearer", "expires_in": 3600, "scope": "read write"}"#
                )
            ),
            (
                "redacted credentials",
                make(
                    "/api/me", requestHeaders: [.authorization: "REDACTED", .cookie: "session=REDACTED; theme=REDACTED"],
                    responseHeaders: [.contentType: "application/json", .setCookie: "session=REDACTED; Path=/; HttpOnly"])
            ),
            ("sorting keys", make("/api/users?sort_key=name&key=users&limit=10", body: #"{"key": "users", "sort_key": "name", "next": "/api/users?page=2"}"#)),
            (
                "URLs, dates, versions, private addresses",
                make(
                    "/api/status",
                    body:
                        #"{"cdn": "https://cdn.example.com/img/apple.png", "updated": "2025-06-15T15:06:40Z", "version": "1.2.3", "host": "10.0.0.5", "local": "127.0.0.1"}"#
                )
            ),
            (
                "a text page",
                make("/about", responseHeaders: [.contentType: "text/plain"], body: "WellPlate keeps track of what you eat.\nVersion 1.2.3, build 42.\n")
            ),
            ("a numeric id list", make("/api/ids", body: #"{"ids": [1001, 1002, 1003], "cursor": "c_1003", "total": 3}"#)),
            (
                "structured values under secret-looking names",
                make(
                    "/api/builds/latest",
                    body:
                        #"{"build_key": "build:1.4.2:linux-x86_64", "cache_token": "v2-assets-2024-06-15", "session_name": "Checkout Flow", "sessionKey": "checkout-flow:step-3:v12"}"#
                )
            ),
            (
                "embedded images and documents",
                make(
                    "/api/users/42/avatar",
                    body:
                        #"{"avatar": "\#(embedded([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], &random))", "thumbnail": "data:image/jpeg;base64,\#(embedded([0xFF, 0xD8, 0xFF, 0xE0], &random))", "icon": "\#(embedded(Array("GIF89a".utf8), &random))", "receipt": "\#(embedded(Array("%PDF-1.7".utf8), &random))"}"#
                )
            ),
        ]
        return items.map { Case(name: $0.0, interaction: $0.1, rule: nil, place: nil, severity: nil) }
    }

    /// Base64 of a binary file: its magic number, then random bytes (as compressed image data is).
    package static func embedded(_ magic: [UInt8], _ random: inout Generator) -> String {
        Data(magic + (0..<180).map { _ in UInt8(truncatingIfNeeded: random.next()) }).base64EncodedString()
    }

    /// The store as plain text, one interaction after another, the way a secret scanner sees a
    /// file; returns the text and the first line of each interaction (1-based).
    package static func textDump(_ interactions: [Interaction]) -> (text: String, firstLines: [Int]) {
        var lines: [String] = []
        var firstLines: [Int] = []
        for (index, interaction) in interactions.enumerated() {
            firstLines.append(lines.count + 1)
            lines.append("### interaction \(index)")
            lines.append("\(interaction.method.rawValue) \(interaction.url)")
            lines += interaction.requestHeaders.map { "\($0.name.rawName): \($0.value)" }
            if let body = interaction.requestBody {
                lines += String(decoding: body, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            }
            lines.append("HTTP \(interaction.statusCode)")
            lines += interaction.responseHeaders.map { "\($0.name.rawName): \($0.value)" }
            lines += String(decoding: interaction.responseBody, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
        return (lines.joined(separator: "\n") + "\n", firstLines)
    }
}
