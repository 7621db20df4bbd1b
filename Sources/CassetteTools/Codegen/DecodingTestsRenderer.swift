import WellPlateCore
import WellPlateNetworking

extension GeneratedSwiftModels {
    /// A Swift Testing suite that decodes every recorded body of each endpoint with its generated
    /// type, reading the store through `RecordedBodies` (the `CASSETTE_DB` environment variable
    /// overrides `storePath`). `module` is imported with `@testable` when the models live in
    /// another target.
    package func decodingTests(storePath: String, module: String?) -> String {
        var text = SwiftModelRenderer(cassette: cassette, names: [:]).header([
            "RecordedModelDecodingTests: every recorded body of each endpoint, decoded with its generated type."
        ])
        text += "\nimport Foundation\nimport Testing\nimport WellPlateNetworking\n"
        if let module { text += "@testable import \(module)\n" }
        text += """

            @Suite("Generated models decode the recordings of cassette \(cassette)")
            struct RecordedModelDecodingTests {
                static let storePath = ProcessInfo.processInfo.environment["CASSETTE_DB"] ?? \(SwiftModelRenderer.literal(storePath))
                static let cassette = \(SwiftModelRenderer.literal(cassette))

                static func bodies(_ endpoint: String, _ role: RecordedBodies.Role) async throws -> [Data] {
                    try await RecordedBodies.load(storePath: storePath, cassette: cassette, endpoint: endpoint, role: role)
                }

            """
        var used: Set<String> = []
        for root in roots {
            let operation = root.endpoint.operation.map { " " + $0 } ?? ""
            let base = root.role.rawValue + SwiftNaming.upperCamel(root.endpoint.method.rawValue.lowercased() + " " + root.endpoint.pattern + operation)
            var name = base
            var suffix = 2
            while !used.insert(name).inserted {
                name = base + String(suffix)
                suffix += 1
            }
            let endpoint = SwiftModelRenderer.literal(root.endpoint.description)
            text += """

                    @Test(\(SwiftModelRenderer.literal("\(root.endpoint) \(root.role.rawValue) decodes as \(root.typeName)")))
                    func \(name)() async throws {
                        let bodies = try await Self.bodies(\(endpoint), .\(root.role.rawValue))
                        #expect(!bodies.isEmpty, \(SwiftModelRenderer.literal("no recorded \(root.role.rawValue) bodies of \(root.endpoint) left; record it again or regenerate")))
                        for body in bodies {
                            _ = try JSONCoding.decode(\(root.typeName).self, from: body)
                        }
                    }

                """
        }
        return text + "}\n"
    }
}
