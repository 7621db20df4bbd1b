import Foundation

/// Why a call to the proxy's sessions failed: the proxy refused it (its explanation included),
/// could not be reached, answered something unreadable, or a session ended with misses.
public struct CassetteControlError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// The kind of failure; new kinds may be added, so switch with a default.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Code: Hashable {
            case refused, unreachable, unreadable, misses
        }

        private let code: Code

        /// The proxy answered with an error status (its message says why and what to do).
        public static let refused = Kind(code: .refused)
        /// The proxy could not be reached at all.
        public static let unreachable = Kind(code: .unreachable)
        /// The proxy's answer was not what a `cassette` proxy sends.
        public static let unreadable = Kind(code: .unreadable)
        /// The session ended with requests that had no recording (or, when asked, unused recordings).
        public static let misses = Kind(code: .misses)

        /// The kind's name.
        public var description: String {
            switch code {
            case .refused: "refused"
            case .unreachable: "unreachable"
            case .unreadable: "unreadable"
            case .misses: "misses"
            }
        }
    }

    /// The kind of failure.
    public let kind: Kind
    /// What went wrong and what to do, in one paragraph.
    public let message: String
    /// The proxy's status, when it answered.
    public let statusCode: Int?
    /// The proxy's error code (`unknown_cassette`, `too_many_sessions`, ...), when it answered one.
    public let code: String?
    /// For ``Kind/misses``: what the session served.
    public let summary: CassetteControl.Summary?

    /// The message.
    public var description: String { message }
    /// The message.
    public var errorDescription: String? { message }

    init(kind: Kind, message: String, statusCode: Int? = nil, code: String? = nil, summary: CassetteControl.Summary? = nil) {
        self.kind = kind
        self.message = message
        self.statusCode = statusCode
        self.code = code
        self.summary = summary
    }

    /// A session that ended with misses (and, with `includingUnused`, recordings it never used):
    /// one line per key with its explanation.
    static func misses(_ summary: CassetteControl.Summary, session: String, cassette: String, includingUnused: Bool) -> CassetteControlError {
        var lines: [String] = []
        let missedCount = summary.missed.reduce(0) { $0 + $1.count }
        if missedCount > 0 {
            lines.append("session \(session) (cassette \"\(cassette)\"): \(missedCount) request(s) had no recording:")
            lines += summary.missed.map { "- \($0.message)" + ($0.count > 1 ? " (\($0.count) times)" : "") }
        }
        if includingUnused && !summary.unused.isEmpty {
            lines.append(
                "session \(session) (cassette \"\(cassette)\"): \(summary.unused.count) recording(s) were never used: \(summary.unused.joined(separator: ", "))"
            )
        }
        return CassetteControlError(kind: .misses, message: lines.joined(separator: "\n"), summary: summary)
    }
}
