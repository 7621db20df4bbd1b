import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

/// Scans stored interactions for secrets that redaction missed: every part of the request and
/// the response (URL path and query, headers and cookies, bodies: JSON value by value, form
/// parameters, free text), by token shape, by the name of the place, and for personal data.
package struct SecretAudit: Sendable {
    package init() {}

    package func findings(in interaction: Interaction) -> [AuditFinding] {
        var collector = Collector(interaction: interaction)
        auditURL(interaction.url, into: &collector)
        auditHeaders(interaction.requestHeaders, side: "request", into: &collector)
        if let body = interaction.requestBody {
            auditBody(body, contentType: interaction.requestHeaders[.contentType], part: "request body", into: &collector)
        }
        auditHeaders(interaction.responseHeaders, side: "response", into: &collector)
        auditBody(interaction.responseBody, contentType: interaction.responseHeaders[.contentType], part: "response body", into: &collector)
        return collector.findingsWithSharedRemedies()
    }

    /// A WebSocket conversation is scanned like a request and its answers: the handshake's URL
    /// and headers, then each text or binary message's payload as a body is (JSON value by
    /// value, or free text), its place named `message 3 (client text) $.token`. Control frames
    /// carry no application data and are left out.
    package func findings(in conversation: Conversation) -> [AuditFinding] {
        var collector = Collector(cassette: conversation.cassette, key: conversation.key, sequence: conversation.sequence, id: nil)
        auditURL(conversation.url, into: &collector)
        // `Sec-WebSocket-Key` is a random nonce of the protocol (RFC 6455 §4.1), not a credential:
        // under a name with "key" in it, it would be reported on every conversation.
        var headers = conversation.requestHeaders
        headers.removeAll { $0.name.canonicalName.hasPrefix("sec-websocket-") }
        auditHeaders(headers, side: conversation.grpc == nil ? "handshake" : "request", into: &collector)
        // A gRPC call's response metadata: its HEADERS and its trailers.
        if let grpc = conversation.grpc {
            if let responseHeaders = grpc.responseHeaders { auditHeaders(responseHeaders, side: "response", into: &collector) }
            auditHeaders(grpc.trailers, side: "trailer", into: &collector)
        }
        for (index, message) in conversation.messages.enumerated() where message.isData {
            auditBody(
                message.payload, contentType: nil, part: "WebSocket message \(index) (\(message.direction.rawValue) \(message.kind.rawValue))",
                into: &collector)
        }
        return collector.findingsWithSharedRemedies()
    }

    /// Checks one value found at a named place (or at no name, for free text).
    /// `place` is described only when something is found: most values are clean.
    func audit(value: String, name: String?, place: @autoclosure () -> String, remedy: AuditRemedy, into collector: inout Collector) {
        var matches = SecretScanner.scan(value)
        if let name, let kind = collector.kind(of: name), !SecretNames.isPlaceholderValue(value), !ValueShapes.isEncodedBinary(value) {
            // Words and versions joined by separators are made by people: under a token-like name
            // (`cache_key`) no secret, under a credential name medium, a password always high.
            let structured = ValueShapes.isPlainlyStructured(value)
            let secret = kind == .credential || (Entropy.looksRandom(value) && !structured)
            let severity: AuditSeverity = kind == .credential && structured && !SecretNames.isPasswordName(name) ? .medium : .high
            if secret, !matches.contains(where: { $0.severity >= severity }) {
                matches.append(SecretMatch(rule: "keyword", description: "value of a secret-looking name (\(name))", severity: severity, value: value))
            }
        } else if name != nil, matches.isEmpty, Entropy.isHighEntropyBase64(value) {
            matches.append(SecretMatch(rule: "high-entropy", description: "high-entropy base64 string", severity: .medium, value: value))
        }
        guard !matches.isEmpty else { return }
        let described = place()
        for match in matches {
            collector.add(match, place: described, remedy: remedy)
        }
    }

    private func auditURL(_ url: String, into collector: inout Collector) {
        let question = url.firstIndex(of: "?")
        let beforeQuery = String(url[..<(question ?? url.endIndex)])
        audit(value: beforeQuery, name: nil, place: "request URL", remedy: .none, into: &collector)
        guard let question else { return }
        let query = url[url.index(after: question)...].prefix { $0 != "#" }
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.formDecoded(parts[0])
            let value = parts.count > 1 ? Self.formDecoded(parts[1]) : ""
            audit(value: value, name: name, place: "request query parameter \(name)", remedy: .queryParameter(name), into: &collector)
        }
    }

    private func auditHeaders(_ fields: HTTPFields, side: String, into collector: inout Collector) {
        for field in fields {
            let name = field.name.rawName
            switch field.name.canonicalName {
            case "cookie", "set-cookie":
                let isSet = field.name.canonicalName == "set-cookie"
                let pairs = field.value.split(separator: ";")
                for pair in isSet ? Array(pairs.prefix(1)) : pairs {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    let cookie = parts[0].trimmingCharacters(in: .whitespaces)
                    let value = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
                    guard !value.isEmpty, !SecretNames.isPlaceholderValue(value) else { continue }
                    // The redactor's own judgement (`SecretCookies`): a credential cookie kept in
                    // clear is a finding; `theme=dark` is kept on purpose, and is checked only
                    // for what any value is checked for (a known token's shape).
                    guard SecretCookies.isSecret(name: cookie, value: value) else {
                        audit(value: value, name: nil, place: "\(side) cookie \(cookie)", remedy: .header(name), into: &collector)
                        continue
                    }
                    collector.add(
                        SecretMatch(rule: "cookie", description: "cookie value", severity: .high, value: value), place: "\(side) cookie \(cookie)",
                        remedy: .header(name))
                }
            case "authorization", "proxy-authorization":
                if !SecretNames.isPlaceholderValue(field.value) {
                    collector.add(
                        SecretMatch(rule: "authorization", description: "credentials of an Authorization header", severity: .high, value: field.value),
                        place: "\(side) header \(name)", remedy: .header(name))
                }
            default:
                audit(value: field.value, name: name, place: "\(side) header \(name)", remedy: .header(name), into: &collector)
            }
        }
    }

    /// `part` names where the body is (`response body`, `WebSocket message 3 (client text)`).
    private func auditBody(_ body: Data, contentType: String?, part: String, into collector: inout Collector) {
        guard !body.isEmpty else { return }
        let type = contentType?.lowercased() ?? ""
        if type.hasPrefix("image/") || type.hasPrefix("audio/") || type.hasPrefix("video/") || type.contains("octet-stream") || type.contains("zip") { return }
        if Redactor.mayBeJSON(body, contentType: type) {
            var spans: [JSONSpan] = []
            let valid = JSONSpan.walk(body) { span in
                switch span.kind {
                case .string, .number: spans.append(span)
                case .literal, .container: break
                }
            }
            if valid {
                for span in spans { auditJSON(span, part: part, into: &collector) }
                return
            }
        }
        guard let text = String(data: body, encoding: .utf8) else { return }
        if type.contains("x-www-form-urlencoded") {
            for pair in text.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = Self.formDecoded(parts[0])
                audit(
                    value: parts.count > 1 ? Self.formDecoded(parts[1]) : "", name: name, place: "\(part) parameter \(name)", remedy: .none,
                    into: &collector)
            }
            return
        }
        audit(value: text, name: nil, place: part, remedy: .none, into: &collector)
        for (name, value) in KeywordAssignments.find(in: text) {
            audit(value: value, name: name, place: "\(part) (\(name)=...)", remedy: .none, into: &collector)
        }
    }

    private func auditJSON(_ span: JSONSpan, part: String, into collector: inout Collector) {
        let fieldName: String? = span.path.last.flatMap { component in
            if case .key(let key) = component { return key }
            return nil
        }
        let nearestKey: String? = span.path.reversed().lazy.compactMap { component -> String? in
            if case .key(let key) = component { return key }
            return nil
        }.first
        let place = { "\(part) \(JSONPathComponent.describe(span.path))" }
        let remedy: AuditRemedy = nearestKey.map { .jsonField($0) } ?? .none
        switch span.kind {
        case .string(let text):
            audit(value: text, name: fieldName ?? nearestKey, place: place(), remedy: remedy, into: &collector)
        case .number(let text):
            // A number is a secret only where the name says so: a PIN, a one-time code.
            if let name = fieldName, collector.kind(of: name) == .credential {
                collector.add(
                    SecretMatch(rule: "keyword", description: "value of a secret-looking name (\(name))", severity: .high, value: text), place: place(),
                    remedy: remedy)
            }
        case .literal, .container:
            break
        }
    }

    private static func formDecoded(_ text: Substring) -> String {
        let plus = text.replacingOccurrences(of: "+", with: " ")
        return plus.removingPercentEncoding ?? plus
    }

    /// Gathers one interaction's (or conversation's) findings, one per value and place (the most severe).
    struct Collector {
        let cassette: String
        let key: String
        let sequence: Int
        let id: Int64?
        var findings: [AuditFinding] = []
        private var values: [String] = []
        private var seen: [String: Int] = [:]
        /// Names repeat (every object of a list has the same keys): each is classified once.
        private var nameKinds: [String: SecretNames.Kind?] = [:]

        mutating func kind(of name: String) -> SecretNames.Kind? {
            if let known = nameKinds[name] { return known }
            let kind = SecretNames.kind(of: name)
            nameKinds[name] = kind
            return kind
        }

        init(interaction: Interaction) {
            self.init(cassette: interaction.cassette, key: interaction.key, sequence: interaction.sequence, id: interaction.id)
        }

        init(cassette: String, key: String, sequence: Int, id: Int64?) {
            self.cassette = cassette
            self.key = key
            self.sequence = sequence
            self.id = id
        }

        mutating func add(_ match: SecretMatch, place: String, remedy: AuditRemedy) {
            let identity = place + "\u{0}" + match.value
            if let existing = seen[identity] {
                if findings[existing].severity < match.severity { findings[existing] = finding(match, place: place, remedy: remedy) }
                return
            }
            seen[identity] = findings.count
            findings.append(finding(match, place: place, remedy: remedy))
            values.append(match.value)
        }

        /// A value found in several places needs one rule: the one for a header or parameter
        /// (redaction then follows the value everywhere else), rather than one per place.
        func findingsWithSharedRemedies() -> [AuditFinding] {
            var best: [String: AuditRemedy] = [:]
            for (index, finding) in findings.enumerated() where Self.rank(finding.remedy) > Self.rank(best[values[index]] ?? .none) {
                best[values[index]] = finding.remedy
            }
            // The key holds the URL's path and query: every value found is masked in it too.
            let key = AuditFinding.masking(values, in: self.key)
            return findings.enumerated().map { index, finding in
                var finding = finding
                if let remedy = best[values[index]] { finding.remedy = remedy }
                finding.key = key
                return finding
            }
        }

        private static func rank(_ remedy: AuditRemedy) -> Int {
            switch remedy {
            case .header: 3
            case .queryParameter: 2
            case .jsonField: 1
            case .none: 0
            }
        }

        private func finding(_ match: SecretMatch, place: String, remedy: AuditRemedy) -> AuditFinding {
            AuditFinding(
                cassette: cassette, key: key, sequence: sequence, interactionID: id,
                place: place, rule: match.rule, description: match.description, severity: match.severity,
                maskedValue: AuditFinding.mask(match.value), remedy: remedy
            )
        }
    }
}
