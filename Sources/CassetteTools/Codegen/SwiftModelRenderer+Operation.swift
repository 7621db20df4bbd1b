import WellPlateCore
import WellPlateNetworking

extension SwiftModelRenderer {
    /// A GraphQL operation's namespace: its name for requests, and its `Data` and `Variables`
    /// as the types generated for them, so an app writes `GetUserQuery.Data` as with Apollo.
    func renderOperation(_ endpoint: Endpoint, namespace: String, data: String?, variables: String?) -> String {
        let name = endpoint.operationName ?? namespace
        var text = header(["\(namespace): the GraphQL operation \(endpoint.operation ?? name) (\(endpoint.method.rawValue) \(endpoint.pattern))."])
        text += "\nimport Foundation\n\n"
        text += "public enum \(namespace) {\n"
        text += "    /// The `operationName` to send.\n"
        text += "    public static let operationName = \(Self.literal(name))\n"
        // A type already named `Data` or `Variables` cannot be aliased from inside the namespace.
        if let data, data != "Data" {
            text += "    /// The answer's `data`.\n"
            text += "    public typealias Data = \(data)\n"
        }
        if let variables, variables != "Variables" {
            text += "    /// The operation's variables.\n"
            text += "    public typealias Variables = \(variables)\n"
        }
        text += "}\n"
        return text
    }
}
