import Foundation
import WellPlateCore

/// The UI as one self-contained HTML file, for a CI job to keep: the data inline as JSON, the
/// stylesheet and the script inline and allowed by their hashes alone (`script-src 'sha256-…'`,
/// no `'unsafe-inline'`), nothing fetched, so it opens from `file://` with no network.
package struct HTMLReport: Sendable {
    /// What a `cassette run` served: shown as the report's Live view.
    package struct Run: Sendable {
        /// The command the run started.
        package var command: String
        /// Every request the proxy answered, in order, as the live feed sends them.
        package var requests: [JSONValue]
        /// Keys of recordings the run never replayed.
        package var unused: [String]
        /// The cassette the proxy served outside sessions, and how (`replay`, `record`, `missing`).
        package var cassette: String
        package var mode: String
        /// The sessions the command opened, as the Sessions view shows them (`api/sessions`'s
        /// `sessions`): those still open when it ended, then the last that ended.
        package var sessions: [JSONValue]

        package init(command: String, requests: [JSONValue], unused: [String], cassette: String = "", mode: String = "", sessions: [JSONValue] = []) {
            self.command = command
            self.requests = requests
            self.unused = unused
            self.cassette = cassette
            self.mode = mode
            self.sessions = sessions
        }
    }

    package let catalog: UICatalog
    package var run: Run?

    package init(catalog: UICatalog, run: Run? = nil) {
        self.catalog = catalog
        self.run = run
    }

    /// The report's HTML: every cassette of the store, every recording with its bodies and every
    /// WebSocket conversation and gRPC call with its messages (each body and payload up to `catalog.bodyLimit`).
    package func html(generated: Date = Date()) async throws -> String {
        let store = catalog.store
        let cassettes = try await catalog.cassettes()
        var tables = ReportTables()
        // In the order the served list has (`browse`: by id, the order they were stored), not
        // the store's key order, where `items/10` comes before `items/2`.
        let interactions = try await store.interactions(cassette: nil).sorted { ($0.id ?? 0) < ($1.id ?? 0) }
        for interaction in interactions {
            tables.add(interaction, catalog: catalog)
        }
        // gRPC calls' messages decode with the store's descriptors, as `cassette ui` shows them.
        let schema = try await store.protoSchema()
        var data: JSONObject = [
            "store": .string(store.path),
            "generated": .string(UICatalog.timestamp(generated)),
            "cassettes": cassettes.objectValue?["cassettes"] ?? .array([]),
            "interactions": tables.json,
            "conversations": .array(try await store.conversations(cassette: nil).map { catalog.conversationDetail($0, schema: schema) }),
        ]
        if let findings = catalog.findings {
            data["findings"] = try await findings()
        }
        if let run {
            data["run"] = [
                "command": .string(run.command), "requests": .array(run.requests), "unused": .array(run.unused.map(JSONValue.string)),
                "cassette": .string(run.cassette), "mode": .string(run.mode), "sessions": .array(run.sessions),
            ]
        }
        return Self.page(dataJSON: JSONValue.object(data).compactJSON)
    }

    /// The page around `dataJSON`. Inside `<script type="application/json">` the only thing that
    /// could end the block early is `<`, which in JSON occurs only inside strings, where `\u003c`
    /// means the same.
    static func page(dataJSON: String) -> String {
        let safe = dataJSON.replacingOccurrences(of: "<", with: "\\u003c")
        let style = "\n" + UIAssets.stylesheet + "\n"
        let script = "\n" + UIAssets.script + "\n"
        let policy = [
            "default-src 'none'", "script-src \(UIAssets.hashSource(of: script))", "style-src \(UIAssets.hashSource(of: style))",
            "img-src data: blob:",
        ].joined(separator: "; ")
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <meta http-equiv="Content-Security-Policy" content="\(policy)">
            <title>cassette report</title><style>\(style)</style></head>
            <body>
            \(UIAssets.body)
            <script type="application/json" id="cassette-data">\(safe)</script>
            <script>\(script)</script>
            </body></html>

            """
    }
}
