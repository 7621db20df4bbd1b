/// The ignore rules that reach into GraphQL variables by path: an `ignoredBodyFields` entry such
/// as `$.variables.clientMutationId` or `$.variables.input.clientMutationId`. Plain names in the
/// list are left out at any depth, as in every JSON body, by the canonical writer.
struct GraphQLIgnoredFields: Sendable {
    /// Each path below `$.variables`, as its lower-cased member names.
    private let paths: [[String]]
    /// The plain names, for the canonical writer.
    let names: Set<String>

    init(_ ignoredBodyFields: Set<String>) {
        let prefix = "$.variables."
        paths = ignoredBodyFields.filter { $0.hasPrefix(prefix) }.map { $0.dropFirst(prefix.count).split(separator: ".").map(String.init) }
        names = ignoredBodyFields.filter { !$0.hasPrefix("$.") }
    }

    /// `variables` without the members the paths name (compared ignoring case, as the rules are).
    func removing(from variables: JSONValue) -> JSONValue {
        paths.reduce(variables) { value, path in Self.removing(path[...], from: value) }
    }

    private static func removing(_ path: ArraySlice<String>, from value: JSONValue) -> JSONValue {
        guard let first = path.first, var object = value.objectValue else { return value }
        for key in object.keys where key.lowercased() == first {
            if path.count == 1 {
                object[key] = nil
            } else if let member = object[key] {
                object[key] = removing(path.dropFirst(), from: member)
            }
        }
        return .object(object)
    }
}
