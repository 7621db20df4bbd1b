import WellPlateCore
import WellPlateNetworking
import Yams

/// Writes a `JSONValue` as YAML through Yams, keys in Unicode code point order as `prettyJSON`
/// writes them, so both formats of one document list the same things in the same order.
///
/// Strings that a YAML reader would take for something else (`200`, `true`, `null`, `1.5`) are
/// quoted (Yams's `String.represented()`), so status codes stay strings as OpenAPI requires.
package enum YAMLWriter {
    package static func yaml(_ value: JSONValue) throws -> String {
        try Yams.serialize(node: node(value), width: -1, allowUnicode: true)
    }

    static func node(_ value: JSONValue) -> Node {
        switch value {
        case .null:
            return Node("null", Tag(.null))
        case .bool(let flag):
            return Node(flag ? "true" : "false", Tag(.bool))
        case .integer(let integer):
            return Node(String(integer), Tag(.int))
        case .bigInteger(let literal):
            return Node(literal, Tag(.int))
        case .number:
            return Node(value.compactJSON, Tag(.float))
        case .string(let string):
            return .scalar(string.represented())
        case .array(let elements):
            return Node(elements.map(node))
        case .object(let object):
            return Node(object.sortedMembers.map { (Node.scalar($0.key.represented()), node($0.value)) })
        }
    }
}
