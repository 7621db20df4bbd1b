import WellPlateCore
import WellPlateNetworking

/// Compares the schema of fixture files with the schema of real API responses and reports contract
/// drift: only differences of shape (fields, types, nullability, string formats), never of values.
///
/// The rules, location by location:
/// - `null`: the API sends it and the fixture never does is an error (`apiSendsNull`); the reverse is
///   a warning (`fixtureHasNull`).
/// - Types, compared only when both sides saw a non-null value: each type the fixture has and the
///   API never sends is an error (`typeMismatch`, or `rootTypeMismatch` at `$`), one finding per
///   type. When the fixture's types are all fine but the API also sends others, that is one
///   `typeMismatch` too, because a model written from the fixture cannot decode them. Integer in the
///   fixture against number in the API is fine; number against integer is not.
/// - Strings on both sides with different formats: `formatChanged` (warning).
/// - Objects on both sides: a fixture key the API never sends is `fieldNotInAPI` (error); an API key
///   the fixture lacks is `fieldMissingInFixture` (warning); a key every fixture object has but some
///   API objects omit is `fieldOptionalInAPI` (note). The reverse, required in the API and optional in
///   the fixture, is fine: the fixture merely shows both cases. Shared keys are compared recursively.
/// - Arrays on both sides: their items are compared at `[*]`, unless either side only ever had
///   empty arrays, which say nothing about the items.
/// - Findings under an ignored path (a pattern matching the path or one of its ancestors) are dropped.
///
/// The same rules compare two recordings (last week's against today's): the baseline plays the
/// fixture, the newer recording plays the API, and `sides` names them in the messages.
package struct SchemaDiff: Sendable {
    /// Patterns whose findings, and the findings of everything inside them, are dropped.
    package var ignoredPaths: [JSONPath]
    /// How messages name the two sides.
    package var sides: Sides

    package init(ignoring ignoredPaths: [JSONPath] = [], sides: Sides = .fixtureAndAPI) {
        self.ignoredPaths = ignoredPaths
        self.sides = sides
    }

    /// Parses the ignore patterns, as a command line would pass them.
    /// - Throws: `JSONPathError` for the first pattern that is not a valid path.
    package init(ignoring patterns: [String]) throws(JSONPathError) {
        var paths: [JSONPath] = []
        for pattern in patterns {
            paths.append(try JSONPath(pattern))
        }
        self.init(ignoring: paths)
    }

    /// The names messages give the two sides: the one whose shape is checked (`fixture`) and the
    /// one it is checked against (`api`).
    package struct Sides: Sendable, Hashable {
        package var fixture: String
        package var api: String
        /// The names with an article where a sentence needs one: "the fixture", "the API".
        package var theFixture: String
        package var theAPI: String

        package init(fixture: String, api: String, theFixture: String? = nil, theAPI: String? = nil) {
            self.fixture = fixture
            self.api = api
            self.theFixture = theFixture ?? fixture
            self.theAPI = theAPI ?? api
        }

        /// "fixture has string, API sends number".
        package static let fixtureAndAPI = Sides(fixture: "fixture", api: "API", theFixture: "the fixture", theAPI: "the API")
    }

    /// The findings, sorted by path, then rule. Empty when either side has no samples.
    package static func compare(fixture: InferredSchema, api: InferredSchema, ignoring: [JSONPath] = []) -> [SchemaFinding] {
        SchemaDiff(ignoring: ignoring).compare(fixture: fixture, api: api)
    }

    /// The findings, sorted by path, then rule. Empty when either side has no samples.
    package func compare(fixture: InferredSchema, api: InferredSchema) -> [SchemaFinding] {
        guard !fixture.isEmpty, !api.isEmpty else { return [] }
        var findings: [SchemaFinding] = []
        compare(fixture, api, at: .root, into: &findings)
        return
            findings
            .filter { finding in !ignoredPaths.contains { $0.matches(finding.path) } }
            .sorted()
    }

    private func compare(_ fixture: InferredSchema, _ api: InferredSchema, at path: JSONPath, into findings: inout [SchemaFinding]) {
        compareNullability(fixture, api, at: path, into: &findings)

        let fixtureTypes = fixture.nonNullTypes
        let apiTypes = api.nonNullTypes
        // A side that only ever saw null says nothing about the type of its values.
        guard !fixtureTypes.isEmpty, !apiTypes.isEmpty else { return }

        compareTypes(fixture, api, at: path, into: &findings)
        if fixtureTypes.contains(.string), apiTypes.contains(.string), fixture.stringFormat != api.stringFormat {
            let expected = api.describe(.string)
            let actual = fixture.describe(.string)
            findings.append(
                SchemaFinding(
                    path: path, rule: .formatChanged, expected: expected, actual: actual,
                    message: "format changed: \(sides.fixture) has \(actual), \(sides.api) sends \(expected)"
                ))
        }
        if fixtureTypes.contains(.object), apiTypes.contains(.object) {
            compareProperties(fixture, api, at: path, into: &findings)
        }
        if fixtureTypes.contains(.array), apiTypes.contains(.array),
            let fixtureItems = fixture.items, let apiItems = api.items
        {
            compare(fixtureItems, apiItems, at: path.appendingItems(), into: &findings)
        }
    }

    private func compareNullability(_ fixture: InferredSchema, _ api: InferredSchema, at path: JSONPath, into findings: inout [SchemaFinding]) {
        let expected = api.description
        let actual = fixture.description
        if api.isNullable, !fixture.isNullable {
            findings.append(
                SchemaFinding(
                    path: path, rule: .apiSendsNull, expected: expected, actual: actual,
                    message: "\(sides.api) sends null but \(sides.theFixture) never has null; a model must make this optional (\(sides.api) sends \(expected))"
                ))
        } else if fixture.isNullable, !api.isNullable {
            findings.append(
                SchemaFinding(
                    path: path, rule: .fixtureHasNull, expected: expected, actual: actual,
                    message: "\(sides.fixture) has null but \(sides.theAPI) never sends null here (\(sides.api) sends \(expected))"
                ))
        }
    }

    private func compareTypes(_ fixture: InferredSchema, _ api: InferredSchema, at path: JSONPath, into findings: inout [SchemaFinding]) {
        let fixtureTypes = fixture.nonNullTypes
        let apiTypes = api.nonNullTypes
        // Whole numbers in a fixture are valid examples of a number field; fractional ones are not
        // valid examples of an integer field.
        let fixtureOnly = fixtureTypes.filter { type in
            !apiTypes.contains(type) && !(type == .integer && apiTypes.contains(.number))
        }
        let apiOnly = apiTypes.filter { type in
            !fixtureTypes.contains(type) && !(type == .number && fixtureTypes.contains(.integer))
                && !(type == .integer && fixtureTypes.contains(.number))
        }
        let isRoot = path.segments.isEmpty
        let rule: SchemaFinding.Rule = isRoot ? .rootTypeMismatch : .typeMismatch
        let subject = isRoot ? "response type changed" : "type changed"
        let expected = api.nonNullDescription
        for type in fixtureOnly {
            let actual = fixture.describe(type)
            findings.append(
                SchemaFinding(
                    path: path, rule: rule, expected: expected, actual: actual,
                    message: "\(subject): \(sides.fixture) has \(actual), \(sides.api) sends \(expected)"
                ))
        }
        if fixtureOnly.isEmpty, !apiOnly.isEmpty {
            let actual = fixture.nonNullDescription
            let extra = apiOnly.map(api.describe).joined(separator: " | ")
            findings.append(
                SchemaFinding(
                    path: path, rule: rule, expected: expected, actual: actual,
                    message: "\(subject): \(sides.api) also sends \(extra), \(sides.fixture) only has \(actual)"
                ))
        }
    }

    private func compareProperties(_ fixture: InferredSchema, _ api: InferredSchema, at path: JSONPath, into findings: inout [SchemaFinding]) {
        let names = Set(fixture.properties.keys).union(api.properties.keys)
        for name in names {
            let childPath = path.appending(key: name)
            switch (fixture.properties[name], api.properties[name]) {
            case (let fixtureProperty?, nil):
                let actual = fixtureProperty.description
                findings.append(
                    SchemaFinding(
                        path: childPath, rule: .fieldNotInAPI, expected: "absent", actual: actual,
                        message: "field not in \(sides.api): \(sides.fixture) has \(actual), \(sides.theAPI) never sends this field"
                    ))
            case (nil, let apiProperty?):
                let expected = apiProperty.description
                findings.append(
                    SchemaFinding(
                        path: childPath, rule: .fieldMissingInFixture, expected: expected, actual: "absent",
                        message: "field missing in \(sides.fixture): \(sides.api) sends \(expected)"
                    ))
            case (let fixtureProperty?, let apiProperty?):
                if fixture.isRequired(name), !api.isRequired(name) {
                    let omitted = api.objectCount - apiProperty.sampleCount
                    findings.append(
                        SchemaFinding(
                            path: childPath, rule: .fieldOptionalInAPI, expected: "optional", actual: "required",
                            message: "\(sides.api) omits this field in \(omitted) of \(api.objectCount) objects; \(sides.theFixture) always has it"
                        ))
                }
                compare(fixtureProperty, apiProperty, at: childPath, into: &findings)
            case (nil, nil):
                break
            }
        }
    }
}
