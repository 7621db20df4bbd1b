import HTTPTypes

/// What clients send to the proxy itself and what it adds to its answers: the control prefix and
/// the `X-Cassette` headers, named once here. The modules name their own paths under the prefix
/// (extensions of this type) and register them in a `ControlTable`.
package enum ControlNames {
    /// Every control endpoint's path starts with it; nothing under it is ever forwarded.
    package static let prefix = "/__cassette/"

    /// `X-Cassette: hit|recorded|passthrough|miss|stale|error|endpoint` on every answer.
    package static let answerHeader = "X-Cassette"
    /// `X-Cassette-Record-Error`: the upstream's answer reached the client but was not stored.
    package static let recordErrorHeader = HTTPField.Name("X-Cassette-Record-Error")!
}
