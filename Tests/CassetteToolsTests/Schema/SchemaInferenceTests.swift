import Foundation
import TestSupport
import Testing

@testable import CassetteTools
@testable import WellPlateCore
@testable import WellPlateNetworking

@Suite("Schema inference")
struct SchemaInferenceTests {
    struct InferenceCase: Sendable, CustomTestStringConvertible {
        let rule: String
        let samples: [String]
        /// The exported JSON Schema without `$schema`, compact with sorted keys.
        let schema: String
        var testDescription: String { rule }
    }

    static let inferenceCases: [InferenceCase] = [
        InferenceCase(rule: "integers are integer", samples: ["1", "-2"], schema: #"{"type":"integer"}"#),
        InferenceCase(
            rule: "an integer that is sometimes fractional widens to number, not a union",
            samples: ["1", "2.5", "3"], schema: #"{"type":"number"}"#),
        InferenceCase(rule: "1.0 is a number", samples: ["1.0"], schema: #"{"type":"number"}"#),
        InferenceCase(rule: "integers beyond 64 bits are integer", samples: ["18446744073709551616", "1"], schema: #"{"type":"integer"}"#),
        InferenceCase(rule: "booleans are boolean", samples: ["true", "false"], schema: #"{"type":"boolean"}"#),
        InferenceCase(rule: "only null is null", samples: ["null"], schema: #"{"type":"null"}"#),
        InferenceCase(rule: "any null makes a type nullable", samples: [#""a""#, "null"], schema: #"{"type":["string","null"]}"#),
        InferenceCase(
            rule: "different types are a union", samples: [#""a""#, "1"],
            schema: #"{"anyOf":[{"type":"integer"},{"type":"string"}]}"#),
        InferenceCase(
            rule: "a nullable union lists null last", samples: ["null", #""a""#, "true"],
            schema: #"{"anyOf":[{"type":"boolean"},{"type":"string"},{"type":"null"}]}"#),
        InferenceCase(
            rule: "integer and number in a union widen to number", samples: ["1", "1.5", #""x""#],
            schema: #"{"anyOf":[{"type":"number"},{"type":"string"}]}"#),
        InferenceCase(
            rule: "RFC 3339 timestamps are date-time",
            samples: [#""2024-05-01T12:30:00Z""#, #""2024-05-02T08:00:00.123+02:00""#],
            schema: #"{"format":"date-time","type":"string"}"#),
        InferenceCase(rule: "full dates are date", samples: [#""2024-02-29""#, #""1999-12-31""#], schema: #"{"format":"date","type":"string"}"#),
        InferenceCase(
            rule: "UUIDs in either case are uuid",
            samples: [#""123e4567-e89b-12d3-a456-426614174000""#, #""A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11""#],
            schema: #"{"format":"uuid","type":"string"}"#),
        InferenceCase(
            rule: "http and https URLs are uri", samples: [#""https://example.com/a?b=1""#, #""http://localhost:8080""#],
            schema: #"{"format":"uri","type":"string"}"#),
        InferenceCase(
            rule: "samples that disagree on the format have none",
            samples: [#""2024-05-01""#, #""2024-05-01T12:30:00Z""#], schema: #"{"type":"string"}"#),
        InferenceCase(
            rule: "one plain string removes the format",
            samples: [#""123e4567-e89b-12d3-a456-426614174000""#, #""abc""#, #""123e4567-e89b-12d3-a456-426614174001""#],
            schema: #"{"type":"string"}"#),
        InferenceCase(
            rule: "null does not disturb a format", samples: [#""2024-05-01""#, "null"],
            schema: #"{"format":"date","type":["string","null"]}"#),
        InferenceCase(
            rule: "a key in every object is required, in some objects optional",
            samples: [#"{"id":1,"note":"x"}"#, #"{"id":2}"#],
            schema: #"{"properties":{"id":{"type":"integer"},"note":{"type":"string"}},"required":["id"],"type":"object"}"#),
        InferenceCase(
            rule: "a key present with null is required and nullable",
            samples: [#"{"a":null}"#, #"{"a":1}"#],
            schema: #"{"properties":{"a":{"type":["integer","null"]}},"required":["a"],"type":"object"}"#),
        InferenceCase(
            rule: "an object that is sometimes null is a nullable object",
            samples: [#"{"a":1}"#, "null"],
            schema: #"{"properties":{"a":{"type":"integer"}},"required":["a"],"type":["object","null"]}"#),
        InferenceCase(
            rule: "array items merge across all elements of all samples", samples: ["[1,2]", "[3.5]"],
            schema: #"{"items":{"type":"number"},"type":"array"}"#),
        InferenceCase(
            rule: "an empty array contributes nothing to the items", samples: ["[]", #"["a"]"#, "[]"],
            schema: #"{"items":{"type":"string"},"type":"array"}"#),
        InferenceCase(rule: "only empty arrays leave the items unknown", samples: ["[]", "[]"], schema: #"{"type":"array"}"#),
        InferenceCase(
            rule: "array elements of different shapes make optional properties",
            samples: [#"[{"id":1,"name":"a"},{"id":2,"tags":[]}]"#, #"[{"id":3,"tags":["x"]}]"#],
            schema:
                #"{"items":{"properties":{"id":{"type":"integer"},"name":{"type":"string"},"tags":{"items":{"type":"string"},"type":"array"}},"required":["id"],"type":"object"},"type":"array"}"#
        ),
        InferenceCase(
            rule: "nested objects are inferred at every level",
            samples: [#"{"user":{"address":{"city":"Oslo","zip":"0150"}}}"#, #"{"user":{"address":{"city":"Bergen"}}}"#],
            schema:
                #"{"properties":{"user":{"properties":{"address":{"properties":{"city":{"type":"string"},"zip":{"type":"string"}},"required":["city"],"type":"object"}},"required":["address"],"type":"object"}},"required":["user"],"type":"object"}"#
        ),
        InferenceCase(
            rule: "nested arrays have items of items", samples: [#"[[1],[],[2,3]]"#],
            schema: #"{"items":{"items":{"type":"integer"},"type":"array"},"type":"array"}"#),
        InferenceCase(rule: "an empty object has no properties", samples: ["{}"], schema: #"{"type":"object"}"#),
        InferenceCase(
            rule: "the root may change type between samples", samples: ["{}", "[]"],
            schema: #"{"anyOf":[{"type":"array"},{"type":"object"}]}"#),
        InferenceCase(
            rule: "a key that is not an identifier is kept as is", samples: [#"{"first name":"a","é":1}"#],
            schema: #"{"properties":{"first name":{"type":"string"},"é":{"type":"integer"}},"required":["first name","é"],"type":"object"}"#),
    ]

    @Test("infers the schema of the samples", arguments: inferenceCases)
    func infersSchema(_ testCase: InferenceCase) throws {
        let schema = try InferredSchema(json: testCase.samples)
        #expect(schema.compactSchemaBody == testCase.schema)
    }

    struct FormatCase: Sendable, CustomTestStringConvertible {
        let string: String
        let format: StringFormat?
        var testDescription: String { "\(string) -> \(format?.rawValue ?? "none")" }
    }

    static let formatCases: [FormatCase] = [
        FormatCase(string: "2024-05-01T12:30:00Z", format: .dateTime),
        FormatCase(string: "2024-05-01t12:30:00z", format: .dateTime),
        FormatCase(string: "2024-05-01T12:30:00.5-07:00", format: .dateTime),
        FormatCase(string: "2016-12-31T23:59:60Z", format: .dateTime),
        FormatCase(string: "2024-05-01T12:30:00", format: nil),
        FormatCase(string: "2024-05-01 12:30:00Z", format: nil),
        FormatCase(string: "2024-13-01T00:00:00Z", format: nil),
        FormatCase(string: "2024-05-01T24:00:00Z", format: nil),
        FormatCase(string: "2024-05-01T12:30:00.Z", format: nil),
        FormatCase(string: "2024-05-01T12:30:00+0200", format: nil),
        FormatCase(string: "2024-05-01T12:30:00Zjunk", format: nil),
        FormatCase(string: "2024-02-29", format: .date),
        FormatCase(string: "2000-02-29", format: .date),
        FormatCase(string: "2023-02-29", format: nil),
        FormatCase(string: "1900-02-29", format: nil),
        FormatCase(string: "2024-04-31", format: nil),
        FormatCase(string: "2024-00-10", format: nil),
        FormatCase(string: "2024-5-1", format: nil),
        FormatCase(string: "123e4567-e89b-12d3-a456-426614174000", format: .uuid),
        FormatCase(string: "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", format: .uuid),
        FormatCase(string: "123e4567e89b12d3a456426614174000", format: nil),
        FormatCase(string: "g23e4567-e89b-12d3-a456-426614174000", format: nil),
        FormatCase(string: "https://example.com", format: .uri),
        FormatCase(string: "HTTP://EXAMPLE.COM/x?y#z", format: .uri),
        FormatCase(string: "ftp://example.com", format: nil),
        FormatCase(string: "https://", format: nil),
        FormatCase(string: "https:///path", format: nil),
        FormatCase(string: "https://exa mple.com", format: nil),
        FormatCase(string: "example.com", format: nil),
        FormatCase(string: "mailto:a@example.com", format: nil),
        FormatCase(string: "", format: nil),
        FormatCase(string: "hello", format: nil),
        FormatCase(string: "12345", format: nil),
    ]

    @Test("detects a string format only when it is unambiguous", arguments: formatCases)
    func detectsFormat(_ testCase: FormatCase) {
        #expect(StringFormat.detect(testCase.string) == testCase.format)
    }

    @Test("counts samples, nulls and the objects that carried each key")
    func keepsCounts() throws {
        let schema = try InferredSchema(json: [#"{"a":1,"b":null}"#, #"{"a":2}"#, "null"])
        #expect(schema.sampleCount == 3)
        #expect(schema.nullCount == 1)
        #expect(schema.objectCount == 2)
        #expect(schema.properties["a"]?.sampleCount == 2)
        #expect(schema.properties["b"]?.sampleCount == 1)
        #expect(schema.properties["b"]?.nullCount == 1)
        #expect(schema.requiredProperties == ["a"])
        #expect(schema.isRequired("a"))
        #expect(!schema.isRequired("b"))
        #expect(!schema.isRequired("missing"))
        #expect(schema.description == "object | null")
        #expect(schema.properties["b"]?.description == "null")
    }

    static let mergeSamples = [
        #"{"id":"123e4567-e89b-12d3-a456-426614174000","n":1,"tags":[],"at":"2024-05-01"}"#,
        #"{"id":"123e4567-e89b-12d3-a456-426614174001","n":1.5,"tags":["a"],"extra":{"x":[1]}}"#,
        #"{"id":"not-a-uuid","n":null,"tags":[{"k":1}],"at":"2024-05-01T00:00:00Z"}"#,
        #"[1, "two", null]"#,
        #"{"extra":{"x":[],"y":true},"tags":[]}"#,
        #""https://example.com""#,
    ]

    @Test("merging separately built schemas equals adding every sample, whatever the grouping", arguments: 1..<6)
    func mergeIsAssociative(split: Int) throws {
        let all = try InferredSchema(json: Self.mergeSamples)
        let head = try InferredSchema(json: Array(Self.mergeSamples[..<split]))
        let tail = try InferredSchema(json: Array(Self.mergeSamples[split...]))
        #expect(head.merging(tail) == all)
        #expect(tail.merging(head) == all)

        // (a + b) + c == a + (b + c) for a three-way split.
        let first = try InferredSchema(json: Array(Self.mergeSamples[..<split]))
        let middle = try InferredSchema(json: Array(Self.mergeSamples[split..<min(split + 2, Self.mergeSamples.count)]))
        let last = try InferredSchema(json: Array(Self.mergeSamples[min(split + 2, Self.mergeSamples.count)...]))
        #expect(first.merging(middle).merging(last) == first.merging(middle.merging(last)))
        #expect(first.merging(middle).merging(last) == all)
    }

    @Test("merging an empty schema changes nothing")
    func emptySchemaIsIdentity() throws {
        let schema = try InferredSchema(json: Self.mergeSamples)
        #expect(schema.merging(InferredSchema()) == schema)
        #expect(InferredSchema().merging(schema) == schema)
        #expect(InferredSchema().isEmpty)
        #expect(InferredSchema().description == "unknown")
    }

    @Test("infers 40 levels of nesting")
    func infersDeepNesting() throws {
        let schema = try InferredSchema(json: [nestedJSON(depth: 40, leaf: "1"), nestedJSON(depth: 40, leaf: "null")])
        var node = schema
        for _ in 0..<40 {
            #expect(node.nonNullTypes == [.object])
            #expect(node.requiredProperties == ["level"])
            node = try #require(node.properties["level"])
        }
        #expect(node.types == [.integer, .null])

        var exported = try #require(schema.jsonSchema().objectValue)
        for _ in 0..<40 {
            exported = try #require(exported["properties"]?["level"]?.objectValue)
        }
        #expect(JSONValue.object(exported).compactJSON == #"{"type":["integer","null"]}"#)
    }

    @Test("a body that is not JSON is rejected and leaves the schema unchanged")
    func rejectsInvalidSample() throws {
        var inferrer = SchemaInferrer()
        try inferrer.add(json: Data("[1]".utf8))
        let before = inferrer.schema
        #expect(throws: JSONParseError.self) { try inferrer.add(json: Data("[1,".utf8)) }
        #expect(inferrer.schema == before)
        #expect(SchemaInferrer.infer(from: [[1]]) == before)
    }

    @Test("exports a representative response as JSON Schema draft 2020-12 with sorted keys")
    func exportsJSONSchema() throws {
        let samples = [
            #"""
            {"id": "123e4567-e89b-12d3-a456-426614174000", "total": 3, "next": "https://api.example.com/orders?page=2",
             "orders": [
               {"number": 1, "price": 9.99, "placedAt": "2024-05-01T12:30:00Z", "coupon": null, "lines": []},
               {"number": 2, "price": 10, "placedAt": "2024-05-02T08:00:00+02:00", "coupon": "SPRING", "note": "leave at door",
                "lines": [{"sku": "A-1", "qty": 2}]}
             ]}
            """#,
            #"""
            {"id": "0b6f2a9e-9d3c-4f5e-8a7b-1c2d3e4f5a6b", "total": 0, "next": null, "orders": [], "ref": 7}
            """#,
            #"""
            {"id": "5f1d7c3a-2b4e-4c6d-9e8f-0a1b2c3d4e5f", "total": 1, "next": null, "ref": "R-7",
             "orders": [{"number": 3, "price": 5.5, "placedAt": "2024-05-03T10:00:00Z", "coupon": null, "lines": [{"sku": "B-2", "qty": 1}]}]}
            """#,
        ]
        let schema = try InferredSchema(json: samples)
        #expect(
            schema.jsonSchema().prettyJSON == #"""
                {
                  "$schema": "https://json-schema.org/draft/2020-12/schema",
                  "properties": {
                    "id": {
                      "format": "uuid",
                      "type": "string"
                    },
                    "next": {
                      "format": "uri",
                      "type": [
                        "string",
                        "null"
                      ]
                    },
                    "orders": {
                      "items": {
                        "properties": {
                          "coupon": {
                            "type": [
                              "string",
                              "null"
                            ]
                          },
                          "lines": {
                            "items": {
                              "properties": {
                                "qty": {
                                  "type": "integer"
                                },
                                "sku": {
                                  "type": "string"
                                }
                              },
                              "required": [
                                "qty",
                                "sku"
                              ],
                              "type": "object"
                            },
                            "type": "array"
                          },
                          "note": {
                            "type": "string"
                          },
                          "number": {
                            "type": "integer"
                          },
                          "placedAt": {
                            "format": "date-time",
                            "type": "string"
                          },
                          "price": {
                            "type": "number"
                          }
                        },
                        "required": [
                          "coupon",
                          "lines",
                          "number",
                          "placedAt",
                          "price"
                        ],
                        "type": "object"
                      },
                      "type": "array"
                    },
                    "ref": {
                      "anyOf": [
                        {
                          "type": "integer"
                        },
                        {
                          "type": "string"
                        }
                      ]
                    },
                    "total": {
                      "type": "integer"
                    }
                  },
                  "required": [
                    "id",
                    "next",
                    "orders",
                    "total"
                  ],
                  "type": "object"
                }
                """#)
    }
}
