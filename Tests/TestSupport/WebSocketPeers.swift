import Foundation
import WellPlateCore

/// The real WebSocket peers of the proxy's tests, installed from PyPI on first use: the upstream
/// `Tests/Peers/websocket_upstream.py` and the client `Tests/Peers/websocket_client.py` on the
/// `websockets` package, and the client `Tests/Peers/websocket_wsproto_client.py` on `wsproto`
/// (sans-IO over a socket: fragments and bad frames written byte by byte), each described in its file.
package enum WebSocketPeers {
    static var peers: URL { ExternalTool.packageRoot.appendingPathComponent("Tests/Peers") }

    /// Installs `websockets` from PyPI when it is missing.
    package static func ensureInstalled() async throws {
        try await ExternalTool.ensure("websockets")
    }

    /// Runs the upstream for `body` (its `http://127.0.0.1:PORT` base) and always stops it. With
    /// `tls` (a certificate for `localhost` and its key) it serves `wss://`, and the base is
    /// `https://localhost:PORT`.
    /// `bind`: listens on that address (`::1`) instead of 127.0.0.1, and `base` names it.
    package static func withUpstream<Result>(
        tls: (certificate: String, key: String)? = nil, bind: String? = nil, _ body: (_ base: URL) async throws -> Result
    )
        async throws -> Result
    {
        try await ensureInstalled()
        let script = peers.appendingPathComponent("websocket_upstream.py").path
        let options = (tls.map { ["--tls", $0.certificate, $0.key] } ?? []) + (bind.map { ["--bind", $0] } ?? [])
        return try await withChildProcess("/usr/bin/env", arguments: ["python3", "-u", script] + options) { process in
            let url = try await process.listeningURL()
            if let bind {
                let host = bind.contains(":") ? "[\(bind)]" : bind
                return try await body(URL(string: "\(tls == nil ? "http" : "https")://\(host):\(url.port ?? 0)")!)
            }
            return try await body(URL(string: tls == nil ? "http://127.0.0.1:\(url.port ?? 0)" : "https://localhost:\(url.port ?? 0)")!)
        }
    }

    /// What the client received running `script` against `url`: one JSON line per message, then
    /// the close code and reason (`{"closed": 4000, "reason": "..."}`).
    /// `proxy`: through that HTTP proxy (CONNECT); `cafile`: the CA `wss://` certificates are checked against.
    /// `deflate`: offer permessage-deflate; the first line is then `{"extensions": ...}` (what was agreed).
    /// `header`: one more handshake header (`X-Cassette-Session: ID`). `times`: each message's line
    /// also has `"at"`, the milliseconds since the connection opened.
    package static func client(
        _ url: String, script: String = "chat", proxy: URL? = nil, cafile: String? = nil, deflate: Bool = false, header: String? = nil,
        times: Bool = false
    )
        async throws -> [String]
    {
        var arguments = ["python3", peers.appendingPathComponent("websocket_client.py").path, url, script]
        if deflate { arguments.append("--deflate") }
        if times { arguments.append("--times") }
        if let proxy { arguments += ["--proxy", proxy.absoluteString] }
        if let cafile { arguments += ["--cafile", cafile] }
        if let header { arguments += ["--header", header] }
        let result = try await ExternalTool.run(arguments, cwd: peers)
        guard result.status == 0 else { throw ChildProcessError("the WebSocket client failed: \(result.stderr)") }
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// What the `wsproto` client received running `script` (with its `argument`) against `url`,
    /// in the same lines as `client`: `{"closed": null, "reason": null}` for a dropped connection.
    /// `deflate`: offer permessage-deflate; the first line is then `{"extensions": [...]}` (what was
    /// agreed) and the last `{"compressed": N, "messages": M}` (of the messages received).
    /// `proxy`: sent to that HTTP proxy in absolute form (`GET http://host:port/path`), without CONNECT.
    package static func wsprotoClient(
        _ url: String, script: String = "chat", argument: String? = nil, deflate: Bool = false, proxy: URL? = nil
    ) async throws -> [String] {
        let install = try await ExternalTool.run(
            ["bash", ExternalTool.packageRoot.appendingPathComponent("scripts/ensure-pip-module.sh").path, "wsproto", "wsproto"], cwd: peers)
        guard install.status == 0 else { throw ChildProcessError("could not install wsproto: \(install.stderr)") }
        let arguments =
            ["python3", peers.appendingPathComponent("websocket_wsproto_client.py").path, url, script] + (argument.map { [$0] } ?? [])
            + (deflate ? ["--deflate"] : []) + (proxy.map { ["--proxy", $0.absoluteString] } ?? [])
        let result = try await ExternalTool.run(arguments, cwd: peers)
        guard result.status == 0 else { throw ChildProcessError("the wsproto client failed: \(result.stderr)") }
        return result.stdout.split(separator: "\n").map(String.init)
    }
}

// The proxy tests' helpers run `cassette` and read its store, as `withProxy` does.
#if canImport(CCurl)
extension WebSocketPeers {
    /// Records what `client` does through `cassette record` in front of the upstream: starts the
    /// upstream (`tls`: `wss://`, as `withUpstream`) and the recorder (`proxyArguments` for the
    /// upstream's base, `record --upstream BASE --port 0 --db STORE` when `nil`), runs `client`
    /// with the recorder and the upstream's base, waits for the recorder to log the conversation,
    /// and stops both. Throws when the recorder does not exit 0 on SIGTERM. Returns what the client received.
    package static func recordConversation(
        store: String, tls: (certificate: String, key: String)? = nil, proxyArguments: ((_ upstream: URL) -> [String])? = nil,
        _ client: (_ recorder: ProxyProcess, _ upstream: URL) async throws -> [String]
    ) async throws -> [String] {
        try await withUpstream(tls: tls) { base in
            let arguments = proxyArguments?(base) ?? ["record", "--upstream", base.absoluteString, "--port", "0", "--db", store]
            return try await withProxy(arguments) { recorder in
                let received = try await client(recorder, base)
                try await recorder.waitForLogLine(containing: "101 WebSocket recording")
                let status = try await recorder.stop()
                guard status == .exited(0) else { throw ChildProcessError("the recorder ended with \(status): \(recorder.process.standardError)") }
                return received
            }
        }
    }

    /// Records the `websocket_client.py` `script` on `/chat` through `cassette record`; what the client received.
    package static func recordChat(store: String, script: String = "chat") async throws -> [String] {
        try await recordConversation(store: store) { recorder, _ in
            try await client("ws://127.0.0.1:\(recorder.port)/chat", script: script)
        }
    }

    /// The conversations in the store at `path`, in key and sequence order, read as a user's tools would.
    package static func storedConversations(at path: String) async throws -> [Conversation] {
        let store = try await CassetteStore.open(path: path, access: .readOnly)
        let conversations = try await store.conversations(cassette: nil)
        try await store.close()
        return conversations
    }
}
#endif
