import CassetteTools
import Foundation
import TestSupport
import WellPlateCore

extension WebSocketPeers {
    /// Records what `client` does through a proxy started in this process in front of the upstream:
    /// `recordConversation` without the binary. Starts the upstream (`tls`: `wss://`, as
    /// `withUpstream`) and the proxy (`proxyArguments` for the upstream's base, `record --upstream
    /// BASE --port 0 --db STORE` when `nil`), runs `client` with the proxy and the upstream's base,
    /// waits for the proxy to log the conversation, and stops both. Throws when the proxy reported
    /// an error. Returns what the client received.
    static func recordInProcess(
        store: String, tls: (certificate: String, key: String)? = nil, proxyArguments: ((_ upstream: URL) -> [String])? = nil,
        _ client: (_ recorder: InProcessProxy, _ upstream: URL) async throws -> [String]
    ) async throws -> [String] {
        try await withUpstream(tls: tls) { base in
            let arguments = proxyArguments?(base) ?? ["record", "--upstream", base.absoluteString, "--port", "0", "--db", store]
            return try await withInProcessProxy(arguments) { recorder in
                let received = try await client(recorder, base)
                try await recorder.waitForLogLine(containing: "101 WebSocket recording")
                await recorder.stop()
                guard !recorder.standardError.contains("error: ") else {
                    throw ChildProcessError("the recorder reported an error: \(recorder.standardError)")
                }
                return received
            }
        }
    }

    /// Records the `websocket_client.py` `script` on `/chat` through a proxy in this process; what the client received.
    static func recordChatInProcess(store: String, script: String = "chat") async throws -> [String] {
        try await recordInProcess(store: store) { recorder, _ in
            try await client("ws://127.0.0.1:\(recorder.port)/chat", script: script)
        }
    }
}

extension CLIWorkspace {
    /// `--config WORKSPACE/cassette.json` when the workspace has that file, else nothing: what
    /// `cassette` started in the workspace finds there by itself (a proxy in this process cannot
    /// change the working directory, which every test shares).
    var configArguments: [String] {
        let file = path(CassetteConfigFile.defaultFileName)
        return FileManager.default.fileExists(atPath: file) ? ["--config", file] : []
    }
}
