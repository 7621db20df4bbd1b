import Foundation

/// Finds the values in a WebSocket message that have the shape of a credential (a JWT, a GitHub
/// or AWS token by its documented prefix, ...), for the recorder to replace before a message is
/// stored. The shapes are `cassette audit`'s, which live in the tools target the core cannot see,
/// so the command that starts the proxy hands its scanner in (HAR import, in the tools, uses it
/// directly); the library's transports have none and keep the JSON field and learned secret rules only.
package struct MessageSecretShapes: Sendable {
    /// The credential-shaped values in a payload, as they are written in it.
    package let find: @Sendable (Data) -> [String]

    package init(_ find: @escaping @Sendable (Data) -> [String]) {
        self.find = find
    }

    /// Finds nothing.
    package static let none = MessageSecretShapes { _ in [] }
}
