import WellPlateCore
import WellPlateNetworking

/// One difference between the schema of a fixture and the schema of the real API's responses.
///
/// Encodes to JSON with the stable keys `path`, `rule`, `severity`, `expected`, `actual` and
/// `message`; `path` is the written path such as `$.items[*].price`.
package struct SchemaFinding: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// How much a finding matters, ordered `note < warning < error` so a caller can keep the
    /// findings at or above a threshold (`--fail-on warning`).
    package enum Severity: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
        case note
        case warning
        case error

        package static func < (lhs: Severity, rhs: Severity) -> Bool {
            lhs.rank < rhs.rank
        }

        private var rank: Int {
            switch self {
            case .note: 0
            case .warning: 1
            case .error: 2
            }
        }
    }

    /// Which comparison rule produced the finding. Raw values are the identifiers written in JSON.
    package enum Rule: String, Sendable, Hashable, Codable, CaseIterable {
        /// The fixture has a field the API never sends. Error.
        case fieldNotInAPI
        /// A field's type differs: the fixture has a type the API never sends there, or the API sends
        /// a type the fixture lacks. A fixture integer where the API sends numbers is fine. Error.
        case typeMismatch
        /// The API sends `null` where the fixture never has it; a model written from the fixture
        /// would declare the field non-optional. Error.
        case apiSendsNull
        /// The document's top-level type differs. Error.
        case rootTypeMismatch
        /// The live API answers a recorded request with another status class (2xx, 4xx, …) than
        /// the recording has. Reported at `$` by `cassette verify`. Error.
        case statusClassChanged
        /// The API sends a field the fixture lacks. Warning.
        case fieldMissingInFixture
        /// The fixture has `null` where the API never sends it. Warning.
        case fixtureHasNull
        /// Both sides are strings but their formats differ (or only one side has one). Warning.
        case formatChanged
        /// The API sometimes omits a field that every fixture object has. A note, not a warning:
        /// fixtures usually hold one sample, in which every field looks required.
        case fieldOptionalInAPI
        /// A fixture that no recorded endpoint matches, or whose endpoint was never recorded with a
        /// 2xx JSON response, so nothing checks it. Reported at `$` by `DriftReport`. Note.
        case fixtureWithoutRecording
        /// A recorded endpoint that no fixture covers. Reported at `$` by `DriftReport`. Note.
        case endpointWithoutFixture
        /// A GraphQL operation answered with an `errors` array in some recordings: the API's
        /// answer, reported at `$.errors` as such rather than as drift of `data`. Note.
        case graphQLErrors

        package var severity: Severity {
            switch self {
            case .fieldNotInAPI, .typeMismatch, .apiSendsNull, .rootTypeMismatch, .statusClassChanged: .error
            case .fieldMissingInFixture, .fixtureHasNull, .formatChanged: .warning
            case .fieldOptionalInAPI, .fixtureWithoutRecording, .endpointWithoutFixture, .graphQLErrors: .note
            }
        }
    }

    // Spelled out so that renaming a property can never change the JSON that tools consume.
    private enum CodingKeys: String, CodingKey {
        case path, rule, severity, expected, actual, message
    }

    package var path: JSONPath
    package var rule: Rule
    package var severity: Severity
    /// What the API sends there, such as `integer`, `string (date-time)`, `string | null` or `absent`.
    package var expected: String
    /// What the fixture has there, in the same notation.
    package var actual: String
    /// One line for people.
    package var message: String

    package init(path: JSONPath, rule: Rule, expected: String, actual: String, message: String) {
        self.path = path
        self.rule = rule
        self.severity = rule.severity
        self.expected = expected
        self.actual = actual
        self.message = message
    }

    /// By path, then rule identifier, then the expected and actual sides (several union members
    /// can be reported at one path).
    package static func < (lhs: SchemaFinding, rhs: SchemaFinding) -> Bool {
        if lhs.path != rhs.path { return lhs.path < rhs.path }
        if lhs.rule != rhs.rule { return lhs.rule.rawValue < rhs.rule.rawValue }
        if lhs.expected != rhs.expected { return lhs.expected.utf8.lexicographicallyPrecedes(rhs.expected.utf8) }
        return lhs.actual.utf8.lexicographicallyPrecedes(rhs.actual.utf8)
    }

    /// One line: severity padded to eight columns, the path, two spaces, the message:
    /// `error   $.items[*].price  type changed: fixture has string, API sends number`.
    package var textLine: String {
        let label = severity.rawValue
        return label + String(repeating: " ", count: max(1, 8 - label.count)) + path.description + "  " + message
    }

    package var description: String { textLine }
}
