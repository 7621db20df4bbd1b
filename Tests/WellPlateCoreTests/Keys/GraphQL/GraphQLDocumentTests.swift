import Foundation
import Testing

@testable import WellPlateCore

@Suite("GraphQL document")
struct GraphQLDocumentTests {
    @Test("comments, commas and whitespace do not change the normalized document; order does")
    func normalization() {
        let compact = GraphQLDocument("query GetUser($id:ID!){user(id:$id){id name}}")
        let spaced = GraphQLDocument(
            """
            # fetched on the profile screen
            query GetUser( $id : ID! ) {
              user( id: $id ) {
                id,
                name
              }
            }
            """)
        #expect(compact.normalized == "query GetUser($id:ID!){user(id:$id){id name}}")
        #expect(spaced.normalized == compact.normalized)
        #expect(GraphQLDocument("query GetUser($id:ID!){user(id:$id){name id}}").normalized != compact.normalized)
    }

    @Test("strings keep their spaces and a # inside them is no comment; commas between arguments are dropped")
    func strings() {
        let document = GraphQLDocument(#"{ search(text: "a  # b", note: """two  lines"""){ id } }"#)
        #expect(document.normalized == #"{search(text:"a  # b"note:"""two  lines"""){id}}"#)
    }

    @Test("operations: typed, named, anonymous, fragments left out, braces of object values inside arguments ignored")
    func operations() {
        let document = GraphQLDocument(
            """
            fragment Parts on User { id }
            query A($f: Filter = {a: {b: 1}}) { users(filter: $f) { ...Parts } }
            mutation B { rename(input: {id: 1}) { id } }
            subscription { changed { id } }
            { me { id } }
            """)
        #expect(
            document.operations == [
                .init(type: .query, name: "A"), .init(type: .mutation, name: "B"), .init(type: .subscription, name: nil),
                .init(type: .query, name: nil),
            ])
    }

    @Test("a document that is not GraphQL keeps its text and has no operations")
    func notGraphQL() {
        let document = GraphQLDocument("  query { a } %  ")
        #expect(document.normalized == "query { a } %")
        #expect(document.operations.isEmpty)
    }

    @Test("numbers, spreads and a byte order mark lex as GraphQL does")
    func tokens() throws {
        let tokens = try GraphQLLexer.tokens(of: "\u{FEFF}{ a(x: -1.5e+3, y: 0) { ...on T { b } } }")
        #expect(
            tokens.map { String(Substring($0.text)) } == [
                "{", "a", "(", "x", ":", "-1.5e+3", "y", ":", "0", ")", "{", "...", "on", "T", "{", "b", "}", "}", "}",
            ])
        #expect(throws: GraphQLLexer.Failure.self) { try GraphQLLexer.tokens(of: "{ a(x: \"open) }") }
    }
}
