import Foundation

/// A GraphQL document as keying sees it: its normalized text and the operations it defines.
package struct GraphQLDocument: Sendable, Equatable {
    /// One operation definition: its type and, unless anonymous, its name.
    package struct Operation: Sendable, Equatable {
        package var type: GraphQLOperationType
        package var name: String?
    }

    /// The tokens joined with no ignored tokens between them (no comments, commas or whitespace),
    /// a single space only where two names or numbers meet; field and argument order as written.
    /// Two documents that differ only in formatting have the same normalized text.
    package let normalized: String
    /// The operations, in document order; fragments and other definitions are left out.
    package let operations: [Operation]

    /// Lexes `text`; a document that is not GraphQL's token grammar keeps its raw text (trimmed) and
    /// no operations, so it still keys, byte for byte.
    package init(_ text: String) {
        guard let tokens = try? GraphQLLexer.tokens(of: text) else {
            normalized = text.trimmingCharacters(in: .whitespacesAndNewlines)
            operations = []
            return
        }
        normalized = Self.joined(tokens)
        operations = Self.operations(in: tokens)
    }

    private static func joined(_ tokens: [GraphQLLexer.Token]) -> String {
        var output: [UInt8] = []
        var previousIsWord = false
        for token in tokens {
            let isWord = token.kind == .name || token.kind == .number
            if isWord, previousIsWord { output.append(0x20) }
            output.append(contentsOf: token.text)
            previousIsWord = isWord
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Operation definitions at the top level: a `{` that opens a definition is an anonymous
    /// query; `query`/`mutation`/`subscription` start a typed one. Braces inside parentheses
    /// (object values of arguments and defaults) do not open or close a definition.
    private static func operations(in tokens: [GraphQLLexer.Token]) -> [Operation] {
        var operations: [Operation] = []
        var braces = 0, parentheses = 0
        var inDefinition = false
        var index = 0
        while index < tokens.count {
            let token = tokens[index]
            let text = String(Substring(token.text))
            if token.kind == .punctuator {
                switch text {
                case "(": parentheses += 1
                case ")": parentheses -= 1
                case "{" where parentheses == 0:
                    if braces == 0, !inDefinition {
                        operations.append(Operation(type: .query, name: nil))
                        inDefinition = true
                    }
                    braces += 1
                case "}" where parentheses == 0:
                    braces -= 1
                    if braces == 0 { inDefinition = false }
                default: break
                }
            } else if token.kind == .name, braces == 0, parentheses == 0, !inDefinition {
                inDefinition = true
                if let type = GraphQLOperationType(rawValue: text) {
                    let next = index + 1 < tokens.count ? tokens[index + 1] : nil
                    let name = next.flatMap { $0.kind == .name ? String(Substring($0.text)) : nil }
                    operations.append(Operation(type: type, name: name))
                }
            }
            index += 1
        }
        return operations
    }
}

/// The three kinds of GraphQL operation.
package enum GraphQLOperationType: String, Sendable, Equatable {
    case query, mutation, subscription
}
