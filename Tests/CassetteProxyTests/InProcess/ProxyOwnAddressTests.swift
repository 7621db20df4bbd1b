import CassetteProxy
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// A client that writes the proxy's own address into a request (an OAuth `redirect_uri`, a
/// callback URL header) records on one port and replays on any other: the address is keyed and
/// stored as `cassette-proxy.invalid`, and an answer that held it gets the replaying proxy's.
@Suite("Proxy's own address in requests")
final class ProxyOwnAddressTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("c.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    /// The OAuth exchange a client makes through the proxy at `port`: the authorization's
    /// redirect, then the token request with the same `redirect_uri` in a form body (the
    /// `localhost` spelling) and a callback header.
    func oauthExchange(
        port: Int, send: (HTTPMethod, String, HTTPFields, Data?) async throws -> TransportResponse
    ) async throws -> (
        authorize: TransportResponse, token: TransportResponse
    ) {
        let redirect = Self.encoded("http://127.0.0.1:\(port)/callback")
        let authorize = try await send(.get, "/api/authorize?response_type=code&redirect_uri=\(redirect)&state=st4te", [:], nil)
        let form = "grant_type=authorization_code&code=c0de&redirect_uri=\(Self.encoded("http://localhost:\(port)/callback"))"
        let token = try await send(
            .post, "/api/token", [.contentType: "application/x-www-form-urlencoded", HTTPField.Name("X-Callback")!: "http://127.0.0.1:\(port)/cb"],
            Data(form.utf8))
        return (authorize, token)
    }

    func record() async throws -> Int {
        try await PythonUpstream.with(in: workspace.directory.path) { upstream in
            try await withInProcessRecorder(upstream: upstream, store: store) { recorder async throws in
                let (authorize, token) = try await oauthExchange(port: recorder.port) { method, path, headers, body in
                    try await recorder.send(method, path, headers: headers, body: body)
                }
                // While recording, the client gets the upstream's answers as they came.
                #expect(authorize.statusCode == 302)
                #expect(authorize.headerFields[.location] == "http://127.0.0.1:\(recorder.port)/callback?code=c0de&state=st4te")
                #expect(try token.jsonObject()["callback"] as? String == "http://127.0.0.1:\(recorder.port)/cb")
                return recorder.port
            }
        }
    }

    func expectReplayed(on proxy: InProcessProxy) async throws {
        let (authorize, token) = try await oauthExchange(port: proxy.port) { method, path, headers, body in
            try await proxy.send(method, path, headers: headers, body: body)
        }
        #expect(authorize.cassetteSource == "hit", "\(authorize.bodyText)")
        #expect(authorize.headerFields[.location] == "http://127.0.0.1:\(proxy.port)/callback?code=c0de&state=st4te")
        #expect(try authorize.jsonObject()["redirect_uri"] as? String == "http://127.0.0.1:\(proxy.port)/callback")
        #expect(Int(authorize.headerFields[.contentLength] ?? "") == authorize.body.count)
        #expect(token.cassetteSource == "hit", "\(token.bodyText)")
        let json = try token.jsonObject()
        // The placeholder goes back as the address this client reached the proxy at.
        #expect(json["redirect_uri"] as? String == "http://127.0.0.1:\(proxy.port)/callback")
        #expect(json["callback"] as? String == "http://127.0.0.1:\(proxy.port)/cb")
    }

    @Test func aRedirectURIRecordedOnOnePortReplaysOnAnother() async throws {
        let recordedPort = try await record()
        let stored = try await StoreFiles.interactions(at: store)
        #expect(stored.count == 2)
        for interaction in stored {
            #expect(!interaction.key.contains(String(recordedPort)), "\(interaction.key)")
        }
        let authorize = try #require(stored.first { $0.method == .get })
        #expect(authorize.url.contains("redirect_uri=http%3A%2F%2Fcassette-proxy.invalid%2Fcallback"), "\(authorize.url)")
        #expect(authorize.responseHeaders[.location] == "http://cassette-proxy.invalid/callback?code=c0de&state=st4te")
        let token = try #require(stored.first { $0.method == .post })
        #expect(String(decoding: token.requestBody ?? Data(), as: UTF8.self).contains("http%3A%2F%2Fcassette-proxy.invalid%2Fcallback"))
        #expect(token.requestHeaders[HTTPField.Name("X-Callback")!] == "http://cassette-proxy.invalid/cb")
        #expect(try StoreFiles.files(at: store, containing: "127.0.0.1:\(recordedPort)") == [])

        try await withInProcessReplayer(store: store) { replayer async throws in
            #expect(replayer.port != recordedPort)
            try await expectReplayed(on: replayer)
            // Asked again: the target is keyed once per event loop, the answer made per client.
            try await expectReplayed(on: replayer)
        }
    }

    @Test func cassetteRunsFreePortReplaysIt() async throws {
        _ = try await record()
        try await withInProcessProxy(["run", "--db", store, "--", "true"]) { proxy async throws in
            try await expectReplayed(on: proxy)
        }
    }

    @Test func theForwardProxysOwnAddressReplaysOnAnotherPortToo() async throws {
        func authorize(through proxy: InProcessProxy, upstream: URL) async throws -> CommandResult {
            let redirect = Self.encoded("http://127.0.0.1:\(proxy.port)/callback")
            return try await ForwardProxyClients.curl(
                upstream.absoluteString + "/api/authorize?redirect_uri=\(redirect)&state=f0rward", proxy: proxy.url, cacert: nil, in: workspace.directory)
        }
        try await PythonUpstream.with(in: workspace.directory.path) { upstream in
            let recordedPort = try await withInProcessProxy(["record", "--port", "0", "--db", store, "--forward", "--ca-dir", workspace.path("ca")]) {
                proxy async throws in
                let curl = try await authorize(through: proxy, upstream: upstream)
                #expect(curl.stdout.contains("Location: http://127.0.0.1:\(proxy.port)/callback?code=c0de&state=f0rward"), "\(curl)")
                return proxy.port
            }
            try await withInProcessProxy(["replay", "--port", "0", "--db", store, "--forward", "--ca-dir", workspace.path("ca")]) { proxy async throws in
                #expect(proxy.port != recordedPort)
                let curl = try await authorize(through: proxy, upstream: upstream)
                #expect(curl.stdout.contains("X-Cassette: hit"), "\(curl)")
                #expect(curl.stdout.contains("Location: http://127.0.0.1:\(proxy.port)/callback?code=c0de&state=f0rward"), "\(curl)")
            }
        }
    }

    @Test func aRequestWithoutTheAddressKeepsItsKey() async throws {
        let paths = try await PythonUpstream.with(in: workspace.directory.path) { upstream in
            try await withInProcessRecorder(upstream: upstream, store: store) { recorder async throws in
                // The port's digits alone, another host's address, a longer port: none is the proxy's.
                let paths = [
                    "/api/items/\(recorder.port)", "/api/items/x?u=\(Self.encoded("http://example.com:\(recorder.port)/"))",
                    "/api/items/y?u=\(Self.encoded("http://127.0.0.1:\(recorder.port)0/"))",
                ]
                for path in paths {
                    #expect(try await recorder.get(path).statusCode == 200)
                }
                return paths
            }
        }
        let stored = try await StoreFiles.interactions(at: store)
        #expect(stored.count == 3)
        for path in paths {
            let interaction = try #require(stored.first { $0.url.hasSuffix(path) }, "stored as sent: \(path)")
            #expect(interaction.key == RequestKey(method: .get, target: path).rawValue)
        }
    }
}
