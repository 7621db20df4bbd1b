import WellPlateCore
import WellPlateNetworking

/// Token formats recognised by their documented prefixes and shapes. Each is checked where a
/// token starts (the byte before is not a letter or digit), on raw bytes, without regular
/// expressions: an audit reads every byte of the store.
struct SecretShape: Sendable {
    let rule: String
    let description: String
    let severity: AuditSeverity
    let prefix: [UInt8]
    /// Characters allowed after the prefix, and how many at least (and at most, 0 for any).
    let body: ByteClass
    let minimumBodyLength: Int
    let maximumBodyLength: Int

    init(_ rule: String, _ description: String, _ severity: AuditSeverity = .high, prefix: String, body: ByteClass, length: ClosedRange<Int>) {
        self.rule = rule
        self.description = description
        self.severity = severity
        self.prefix = Array(prefix.utf8)
        self.body = body
        self.minimumBodyLength = length.lowerBound
        self.maximumBodyLength = length.upperBound
    }

    /// The length of the match at `start`, or nil.
    func match(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        guard start + prefix.count + minimumBodyLength <= bytes.count else { return nil }
        for offset in 0..<prefix.count where bytes[start + offset] != prefix[offset] { return nil }
        var end = start + prefix.count
        let limit = min(bytes.count, end + maximumBodyLength)
        while end < limit, body.contains(bytes[end]) { end += 1 }
        let length = end - start - prefix.count
        guard length >= minimumBodyLength else { return nil }
        // A token that runs on past the documented length is some other, longer word.
        if length == maximumBodyLength, end < bytes.count, ByteClass.alphanumeric.contains(bytes[end]) { return nil }
        return end - start
    }
}

extension SecretShape {
    /// Sources: each provider's documentation of its token formats (and detect-secrets' plugins).
    static let all: [SecretShape] = [
        SecretShape("aws-access-key", "AWS access key id", prefix: "AKIA", body: .upperDigits, length: 16...16),
        SecretShape("aws-access-key", "AWS temporary access key id", prefix: "ASIA", body: .upperDigits, length: 16...16),
        SecretShape("github-token", "GitHub personal access token", prefix: "ghp_", body: .alphanumeric, length: 36...36),
        SecretShape("github-token", "GitHub OAuth token", prefix: "gho_", body: .alphanumeric, length: 36...36),
        SecretShape("github-token", "GitHub user-to-server token", prefix: "ghu_", body: .alphanumeric, length: 36...36),
        SecretShape("github-token", "GitHub server-to-server token", prefix: "ghs_", body: .alphanumeric, length: 36...36),
        SecretShape("github-token", "GitHub refresh token", prefix: "ghr_", body: .alphanumeric, length: 36...36),
        SecretShape("github-token", "GitHub fine-grained token", prefix: "github_pat_", body: .word, length: 22...255),
        SecretShape("gitlab-token", "GitLab personal access token", prefix: "glpat-", body: .wordDash, length: 20...255),
        SecretShape("gitlab-token", "GitLab runner token", prefix: "glrt-", body: .wordDash, length: 20...255),
        SecretShape("slack-token", "Slack bot token", prefix: "xoxb-", body: .wordDash, length: 10...255),
        SecretShape("slack-token", "Slack user token", prefix: "xoxp-", body: .wordDash, length: 10...255),
        SecretShape("slack-token", "Slack app token", prefix: "xoxa-", body: .wordDash, length: 10...255),
        SecretShape("slack-token", "Slack refresh token", prefix: "xoxr-", body: .wordDash, length: 10...255),
        SecretShape("slack-token", "Slack session token", prefix: "xoxs-", body: .wordDash, length: 10...255),
        SecretShape(
            "slack-webhook", "Slack incoming webhook", prefix: "https://hooks.slack.com/services/",
            body: ByteClass("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/"), length: 20...255),
        SecretShape("stripe-key", "Stripe live secret key", prefix: "sk_live_", body: .alphanumeric, length: 20...255),
        SecretShape("stripe-key", "Stripe live restricted key", prefix: "rk_live_", body: .alphanumeric, length: 20...255),
        SecretShape("stripe-key", "Stripe test secret key", .medium, prefix: "sk_test_", body: .alphanumeric, length: 20...255),
        SecretShape("google-api-key", "Google API key", prefix: "AIza", body: .wordDash, length: 35...35),
        SecretShape("npm-token", "npm access token", prefix: "npm_", body: .alphanumeric, length: 36...36),
        SecretShape("pypi-token", "PyPI upload token", prefix: "pypi-AgEIcHlwaS5vcmc", body: .wordDash, length: 50...1000),
        SecretShape("openai-key", "OpenAI API key", prefix: "sk-proj-", body: .wordDash, length: 20...255),
        SecretShape("openai-key", "OpenAI API key", prefix: "sk-", body: .alphanumeric, length: 20...255),
        SecretShape(
            "sendgrid-key", "SendGrid API key", prefix: "SG.", body: ByteClass("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-."),
            length: 60...80),
        SecretShape("square-token", "Square access token", prefix: "sq0atp-", body: .wordDash, length: 22...22),
        SecretShape("square-token", "Square OAuth secret", prefix: "sq0csp-", body: .wordDash, length: 43...43),
        SecretShape("shopify-token", "Shopify access token", prefix: "shpat_", body: .hex, length: 32...32),
        SecretShape("twilio-key", "Twilio API key", .medium, prefix: "SK", body: .lowerHex, length: 32...32),
        SecretShape("twilio-key", "Twilio account SID", .medium, prefix: "AC", body: .lowerHex, length: 32...32),
        SecretShape("artifactory-token", "Artifactory API token", .medium, prefix: "AKC", body: .alphanumeric, length: 10...255),
        SecretShape("huggingface-token", "Hugging Face token", prefix: "hf_", body: .alphanumeric, length: 34...34),
        SecretShape("digitalocean-token", "DigitalOcean token", prefix: "dop_v1_", body: .lowerHex, length: 64...64),
    ]

    /// Shapes by their first byte (an array, not a dictionary: it is consulted for every byte
    /// of the store), so each position is checked against a few at most.
    static let byFirstByte: [[SecretShape]] = {
        var table = [[SecretShape]](repeating: [], count: 256)
        for shape in all { table[Int(shape.prefix[0])].append(shape) }
        return table
    }()
}
