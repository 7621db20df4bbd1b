import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// Compiles generated models with swiftc (one invocation, Swift 6 language mode) together with a
/// `main.swift` that decodes every recorded body of every endpoint with its generated type, using
/// the date strategy of `JSONCoding`, then runs the program.
package enum GeneratedModelsCompiler {
    package struct Outcome {
        package init(compile: CommandResult, run: CommandResult? = nil, bodies: Int) {
            self.compile = compile
            self.run = run
            self.bodies = bodies
        }

        package var compile: CommandResult
        package var run: CommandResult?
        /// Bodies the program was asked to decode.
        package var bodies: Int
    }

    /// `extraSources`: more files of the same module, by name (code that uses platform types the
    /// models must not shadow).
    package static func compileAndDecode(
        models directory: URL, roots: [GeneratedSwiftModels.Root], interactions: [Interaction], in workDirectory: URL,
        extraSources: [String: String] = [:]
    ) async throws -> Outcome {
        let bodiesDirectory = workDirectory.appendingPathComponent("bodies", isDirectory: true)
        try FileManager.default.createDirectory(at: bodiesDirectory, withIntermediateDirectories: true)
        var checks: [String] = []
        for root in roots {
            for (index, body) in RecordedBodies.bodies(of: interactions, endpoint: root.endpoint, role: root.role).enumerated() {
                let file = bodiesDirectory.appendingPathComponent("\(checks.count)-\(index).json")
                try body.write(to: file)
                checks.append("    failures += check(\(root.typeName).self, \(literal(file.path)), \(literal("\(root.endpoint) \(root.role.rawValue)")))")
            }
        }
        let main = """
            import Foundation

            func check<T: Decodable>(_ type: T.Type, _ path: String, _ what: String) -> Int {
                let decoder = JSONDecoder()
                decoder.dateDecodingStrategy = .custom { decoder in
                    let container = try decoder.singleValueContainer()
                    let text = try container.decode(String.self)
                    if let date = try? Date(text, strategy: .iso8601) { return date }
                    if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
                    throw DecodingError.dataCorruptedError(in: container, debugDescription: "not ISO-8601: \\(text)")
                }
                do {
                    _ = try decoder.decode(T.self, from: try Data(contentsOf: URL(fileURLWithPath: path)))
                    return 0
                } catch {
                    print("FAIL \\(what) as \\(T.self): \\(error)")
                    return 1
                }
            }

            func main() {
                var failures = 0
            \(checks.joined(separator: "\n"))
                print("decoded \(checks.count) bodies, \\(failures) failures")
                exit(failures == 0 ? 0 : 1)
            }

            main()

            """
        let mainFile = workDirectory.appendingPathComponent("main.swift")
        try main.write(to: mainFile, atomically: true, encoding: .utf8)
        var sources = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".swift") }.sorted().map { directory.appendingPathComponent($0).path }
        for (name, contents) in extraSources.sorted(by: { $0.key < $1.key }) {
            let file = workDirectory.appendingPathComponent(name)
            try contents.write(to: file, atomically: true, encoding: .utf8)
            sources.append(file.path)
        }
        let program = workDirectory.appendingPathComponent("decode-check").path
        let compile = try await ExternalTool.run(
            "swiftc", ["-swift-version", "6", "-Onone", "-module-name", "GeneratedModels", "-o", program, mainFile.path] + sources,
            cwd: workDirectory
        )
        guard compile.status == 0 else { return Outcome(compile: compile, run: nil, bodies: checks.count) }
        let run = try await ExternalTool.run(program, [], cwd: workDirectory)
        return Outcome(compile: compile, run: run, bodies: checks.count)
    }

    private static func literal(_ text: String) -> String {
        JSONValue.string(text).compactJSON
    }
}
