import CassetteControl
import Foundation
import TestSupport
import Testing
import WellPlateCore

/// docs/control.openapi.yaml: a valid OpenAPI 3.1 document (openapi-spec-validator, from PyPI),
/// and the shape of what a real proxy answers on every session endpoint (checked by the
/// `jsonschema` package that validator depends on).
@Suite("docs/control.openapi.yaml")
final class ControlOpenAPITests {
    let workspace: CLIWorkspace
    static let document = ExternalTool.packageRoot.appendingPathComponent("docs/control.openapi.yaml").path

    init() throws {
        workspace = try CLIWorkspace()
    }

    @Test func theDocumentIsValidOpenAPI() async throws {
        let validator = try await ExternalTool.openAPIValidator()
        let result = try await ExternalTool.run(validator, [Self.document], cwd: workspace.directory)
        #expect(result.status == 0, "openapi-spec-validator rejected docs/control.openapi.yaml: \(result)")
        #expect(result.stdout.contains("OK"), "\(result)")
    }

    /// Checks every `NAME.SCHEMA.json` in the folder against `components.schemas.SCHEMA`.
    static let checker = #"""
        import json, pathlib, sys, yaml
        from jsonschema import Draft202012Validator
        document = yaml.safe_load(open(sys.argv[1]))
        failures = 0
        for path in sorted(pathlib.Path(sys.argv[2]).glob("*.json")):
            schema = path.name.split(".")[1]
            validator = Draft202012Validator({"$ref": "#/components/schemas/" + schema, "components": document["components"]})
            for error in validator.iter_errors(json.load(open(path))):
                failures += 1
                print("%s: %s at %s" % (path.name, error.message, list(error.absolute_path)))
        print("checked", len(list(pathlib.Path(sys.argv[2]).glob("*.json"))))
        sys.exit(1 if failures else 0)
        """#

    @Test func everyAnswerOfARealProxyHasTheDocumentedShape() async throws {
        _ = try await ExternalTool.openAPIValidator()
        let answers = workspace.directory.appendingPathComponent("answers")
        try FileManager.default.createDirectory(at: answers, withIntermediateDirectories: true)
        func keep(_ response: TransportResponse, _ name: String, _ schema: String, status: Int) throws {
            #expect(response.statusCode == status, "\(name): \(response.bodyText)")
            try response.body.write(to: answers.appendingPathComponent("\(name).\(schema).json"))
        }
        try await withSampleAPI { api async throws in
            try await withRecorder(upstream: api, store: workspace.path("c.db")) { proxy async throws in
                try keep(try await proxy.postSession(#"{"cassette": "docs", "mode": "missing"}"#), "created", "SessionCreated", status: 201)
                let session = try await proxy.openSession("docs")
                _ = try await session.get("/api/users/1?fields=name")
                _ = try await session.send(.post, "/api/echo", body: Data("{}".utf8))
                try keep(try await proxy.get("/__cassette/sessions"), "list", "SessionList", status: 200)
                try keep(try await proxy.get("/__cassette/sessions/\(session.id)"), "session", "Session", status: 200)
                try keep(try await proxy.get("/__cassette/sessions/\(session.id)/requests"), "journal", "Journal", status: 200)
                try keep(try await proxy.get("/__cassette/sessions/\(session.id)/requests?path=/api/*"), "filtered", "Journal", status: 200)
                try keep(try await session.reset(), "reset", "Session", status: 200)
                try keep(try await session.end(), "ended", "Summary", status: 200)

                let replaying = try await proxy.openSession("docs", mode: "none")
                _ = try await replaying.get("/api/users/1?fields=name")
                _ = try await replaying.get("/api/users/2")
                try keep(try await proxy.get("/__cassette/sessions/\(replaying.id)/requests"), "misses", "Journal", status: 200)
                try keep(try await replaying.end(strict: true), "strict", "MissedSummary", status: 409)

                try keep(try await proxy.postSession(#"{"cassette": "docs", "mode": "sometimes"}"#), "bad-mode", "Error", status: 400)
                try keep(try await proxy.postSession(#"{"cassette": "unknown", "mode": "none"}"#), "unknown-cassette", "Error", status: 404)
                try keep(try await proxy.get("/__cassette/sessions/nope/requests"), "unknown-session", "Error", status: 404)
                try keep(try await proxy.send(.delete, "/__cassette/sessions/nope?strict=perhaps"), "bad-strict", "Error", status: 400)
            }
        }
        let script = workspace.path("check.py")
        try Data(Self.checker.utf8).write(to: URL(fileURLWithPath: script))
        let result = try await ExternalTool.run("python3", [script, Self.document, answers.path], cwd: workspace.directory)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("checked 13"), "\(result)")
    }

    @Test func aJournalWithWebSocketConversationsHasTheDocumentedShapeAndDecodesInCassetteControl() async throws {
        _ = try await ExternalTool.openAPIValidator()
        let answers = workspace.directory.appendingPathComponent("answers")
        try FileManager.default.createDirectory(at: answers, withIntermediateDirectories: true)
        let store = workspace.path("ws.db")
        _ = try await WebSocketPeers.recordChat(store: store)
        let journal = try await withReplayer(store: store, arguments: ["--ws-timing", "fast"]) { proxy in
            let session = try await proxy.openSession("dev")
            for script in ["chat", "changed"] {
                _ = try await WebSocketPeers.client("ws://127.0.0.1:\(proxy.port)/chat", script: script, header: "X-Cassette-Session: \(session.id)")
            }
            return try await proxy.get("/__cassette/sessions/\(session.id)/requests")
        }
        #expect(journal.statusCode == 200, "\(journal.bodyText)")
        try journal.body.write(to: answers.appendingPathComponent("websocket.Journal.json"))
        let script = workspace.path("check.py")
        try Data(Self.checker.utf8).write(to: URL(fileURLWithPath: script))
        let result = try await ExternalTool.run("python3", [script, Self.document, answers.path], cwd: workspace.directory)
        #expect(result.status == 0, "\(result)")

        struct Journal: Decodable { let requests: [CassetteControl.JournalEntry] }
        let entries = try JSONDecoder().decode(Journal.self, from: journal.body).requests
        #expect(entries.map(\.source) == [.hit, .miss])
        #expect(entries.first?.webSocket?.end == #"server closed 4000 "server says bye""#)
        #expect(entries.last?.webSocket?.missed?.expected == #"text {"id": 7, "method": "add", "params": [1, 2]}"#)
    }
}
