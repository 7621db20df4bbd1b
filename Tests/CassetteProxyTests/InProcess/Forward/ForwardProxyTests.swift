import CassetteForward
import CassetteProxy
import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `cassette record --forward` and `replay --forward` as clients meet them: curl with `-x`,
/// Python `requests` with `proxies=`, and the library's own APIClient over libcurl with
/// `AppConfig.proxy`, against an HTTPS upstream on `localhost` (its CA made at test time) and a
/// plain HTTP one; then replayed with both stopped.
@Suite("Forward proxy")
final class ForwardProxyTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("c.db") }
    var caDirectory: String { workspace.path("ca") }
    var cassetteCA: String { CertificateAuthority.certificatePath(in: caDirectory) }

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// An HTTPS upstream for `localhost` and a plain HTTP one, with the authority made first.
    private func withUpstreams<R>(_ body: (_ https: URL, _ http: URL, TestCertificates) async throws -> R) async throws -> R {
        let made = try await workspace.run("ca", "init", "--dir", caDirectory)
        #expect(made.status == 0, "\(made)")
        let certificates = try await TestCertificates.make(in: workspace.directory.path)
        let tls = PythonUpstream.TLS(certificate: certificates.localhostCertificate, key: certificates.localhostKey)
        let secure: [String: RoutedUpstream.Route] = [
            "GET /v1/me": .init(json: #"{"via": "curl"}"#),
            "GET /v1/python": .init(json: #"{"via": "python"}"#),
            "GET /v1/library": .init(json: #"{"via": "library"}"#),
        ]
        let plain: [String: RoutedUpstream.Route] = ["GET /plain": .init(json: #"{"via": "http"}"#)]
        return try await RoutedUpstream.with(plain, name: "plain", in: workspace.directory.path) { http in
            try await RoutedUpstream.with(secure, tls: tls, name: "secure", in: workspace.directory.path) { https in
                // The client names the host `localhost`, as a real app names its API.
                let local = URL(string: "https://localhost:\(https.port!)")!
                return try await body(local, http, certificates)
            }
        }
    }

    private func withForwardRecorder<R>(arguments: [String], _ body: (InProcessProxy) async throws -> R) async throws -> R {
        try await withInProcessProxy(["record", "--port", "0", "--db", store] + arguments, body)
    }

    /// The library's client, configured as an app would be: a base URL, a proxy and a CA.
    private func libraryClient(base: URL, proxy: URL) async throws -> any APIClientProtocol {
        var config = AppConfig(environment: .development, mode: .live, baseURLOverride: base)
        config.transport = .curl
        config.proxy = proxy
        config.tls.additionalCACertificatesPath = cassetteCA
        return try await APIClientFactory.make(config: config)
    }

    private func via(_ result: CommandResult) -> String? {
        guard let start = result.stdout.range(of: "{") else { return nil }
        let object = try? JSONSerialization.jsonObject(with: Data(result.stdout[start.lowerBound...].utf8)) as? [String: Any]
        return object?["via"] as? String
    }

    @Test func realClientsAreRecordedThroughTheForwardProxyAndReplayedOffline() async throws {
        var httpsURL: URL!
        var httpURL: URL!
        try await withUpstreams { https, http, certificates in
            httpsURL = https
            httpURL = http
            let arguments = ["--forward", "--ca-dir", caDirectory, "--cacert", certificates.caCertificate]
            try await withForwardRecorder(arguments: arguments) { proxy in
                let curl = try await ForwardProxyClients.curl(https.absoluteString + "/v1/me", proxy: proxy.url, cacert: cassetteCA, in: workspace.directory)
                #expect(curl.status == 0, "\(curl)")
                #expect(via(curl) == "curl", "\(curl)")
                #expect(curl.stdout.lowercased().contains("x-cassette: recorded"), "\(curl)")
                let plain = try await ForwardProxyClients.curl(http.absoluteString + "/plain", proxy: proxy.url, cacert: nil, in: workspace.directory)
                #expect(via(plain) == "http", "\(plain)")
                let python = try await ForwardProxyClients.python(
                    https.absoluteString + "/v1/python", proxy: proxy.url, verify: cassetteCA, in: workspace.directory)
                #expect(python.stdout.hasPrefix("200 recorded "), "\(python)")
                #expect(via(python) == "python", "\(python)")
                let client = try await libraryClient(base: https, proxy: proxy.url)
                let answer = try await client.request(
                    url: https.appending(pathAndQuery: "/v1/library"), method: .get, headers: nil, body: nil, responseType: [String: String].self)
                #expect(answer["via"] == "library")
                await proxy.stop()
                #expect(proxy.summaryLine?.hasPrefix("recorded 4,") == true, "\(proxy.outputLines)")
                #expect(proxy.outputLines.contains { $0.hasPrefix("GET \(https.absoluteString)/v1/me 200") }, "\(proxy.outputLines)")
                #expect(proxy.outputLines.contains { $0.hasPrefix("GET \(http.absoluteString)/plain 200") }, "\(proxy.outputLines)")
            }
        }
        // Every recording is keyed with its origin; the authority's key is nowhere in the store.
        let keys = Set(try await StoreFiles.interactions(at: store).map(\.key))
        #expect(
            keys == [
                "GET \(httpsURL.absoluteString)/v1/me", "GET \(httpsURL.absoluteString)/v1/python", "GET \(httpsURL.absoluteString)/v1/library",
                "GET \(httpURL.absoluteString)/plain",
            ])
        let key = try String(contentsOfFile: (caDirectory as NSString).appendingPathComponent(CertificateAuthority.keyFileName), encoding: .utf8)
        let keyBody = key.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        #expect(try StoreFiles.files(at: store, containing: String(keyBody.prefix(40))).isEmpty)

        // Both upstreams are stopped: the same clients get the same answers from the recordings.
        try await withInProcessReplayer(store: store, arguments: ["--forward", "--ca-dir", caDirectory]) { proxy in
            let curl = try await ForwardProxyClients.curl(httpsURL.absoluteString + "/v1/me", proxy: proxy.url, cacert: cassetteCA, in: workspace.directory)
            #expect(via(curl) == "curl", "\(curl)")
            #expect(curl.stdout.lowercased().contains("x-cassette: hit"), "\(curl)")
            let plain = try await ForwardProxyClients.curl(httpURL.absoluteString + "/plain", proxy: proxy.url, cacert: nil, in: workspace.directory)
            #expect(via(plain) == "http", "\(plain)")
            let python = try await ForwardProxyClients.python(
                httpsURL.absoluteString + "/v1/python", proxy: proxy.url, verify: cassetteCA, in: workspace.directory)
            #expect(python.stdout.hasPrefix("200 hit "), "\(python)")
            let client = try await libraryClient(base: httpsURL, proxy: proxy.url)
            let answer = try await client.request(
                url: httpsURL.appending(pathAndQuery: "/v1/library"), method: .get, headers: nil, body: nil, responseType: [String: String].self)
            #expect(answer["via"] == "library")
            // A host never recorded: the CONNECT is refused, saying why.
            let unknown = try await ForwardProxyClients.curl("https://never.invalid/", proxy: proxy.url, cacert: cassetteCA, in: workspace.directory)
            #expect(unknown.status != 0)
            #expect(unknown.stdout.contains("404") || unknown.stderr.contains("404"), "\(unknown)")
            try await proxy.waitForLogLine(containing: "CONNECT never.invalid:443 refused")
            #expect(proxy.outputLines.contains { $0.contains("has no recordings of https://never.invalid") }, "\(proxy.outputLines)")
            // The refusal is a miss, as --strict counts them.
            await proxy.stop()
            #expect(proxy.summaryLine?.hasPrefix("recorded 0, replayed 4, missed 1") == true, "\(proxy.outputLines)")
        }
    }

    @Test func aPinnedHostIsTunnelledAndAHostOutsideTheFilterForwardedNeitherRecorded() async throws {
        try await withUpstreams { https, http, certificates in
            let arguments = [
                "--forward", "--ca-dir", caDirectory, "--cacert", certificates.caCertificate, "--passthrough-host", "127.0.0.1", "--host-filter", "localhost",
            ]
            try await withForwardRecorder(arguments: arguments) { proxy in
                // Pinned: the client sees the real upstream's certificate (the test CA), not cassette's.
                let pinned = try await ForwardProxyClients.curl(
                    "https://127.0.0.1:\(https.port!)/v1/me", proxy: proxy.url, cacert: certificates.caCertificate, in: workspace.directory)
                #expect(pinned.status == 0, "\(pinned)")
                #expect(via(pinned) == "curl", "\(pinned)")
                #expect(!pinned.stdout.lowercased().contains("x-cassette"), "\(pinned)")
                try await proxy.waitForLogLine(containing: "tunnelled untouched, not recorded (--passthrough-host 127.0.0.1)")
                // Outside the filter (and pinned too): forwarded as it is.
                let plain = try await ForwardProxyClients.curl(http.absoluteString + "/plain", proxy: proxy.url, cacert: nil, in: workspace.directory)
                #expect(via(plain) == "http", "\(plain)")
                #expect(plain.stdout.lowercased().contains("x-cassette: passthrough"), "\(plain)")
                try await proxy.waitForLogLine(containing: "forwarded as it is, not recorded")
                // Inside the filter: recorded.
                let recorded = try await ForwardProxyClients.curl(
                    https.absoluteString + "/v1/me", proxy: proxy.url, cacert: cassetteCA, in: workspace.directory)
                #expect(recorded.stdout.lowercased().contains("x-cassette: recorded"), "\(recorded)")
            }
        }
        let keys = try await StoreFiles.interactions(at: store).map(\.key)
        #expect(keys.count == 1 && keys[0].hasPrefix("GET https://localhost:"), "\(keys)")
    }

    @Test func aHostOutsideTheFilterIsTunnelledOverHTTPSToo() async throws {
        try await withUpstreams { https, _, certificates in
            try await withForwardRecorder(arguments: ["--forward", "--ca-dir", caDirectory, "--host-filter", "*.example.com"]) { proxy in
                let tunnelled = try await ForwardProxyClients.curl(
                    https.absoluteString + "/v1/me", proxy: proxy.url, cacert: certificates.caCertificate, in: workspace.directory)
                #expect(via(tunnelled) == "curl", "\(tunnelled)")
                try await proxy.waitForLogLine(containing: "(outside --host-filter *.example.com)")
            }
        }
        #expect(try await StoreFiles.interactions(at: store).isEmpty)
    }

    /// curl asking for `version` (`--http2`, `--http1.1`), printing to stderr the version it spoke
    /// inside the tunnel.
    private func curl(_ url: String, proxy: URL, asking version: String) async throws -> CommandResult {
        try await ForwardProxyClients.curl(
            url, proxy: proxy, cacert: cassetteCA, options: [version, "-w", "%{stderr}http_version=%{http_version}\n"], in: workspace.directory)
    }

    @Test func theTunnelOffersHTTP2AndWhatWasRecordedOverItIsReplayedOverIt() async throws {
        var httpsURL: URL!
        try await withUpstreams { https, _, certificates in
            httpsURL = https
            try await withForwardRecorder(arguments: ["--forward", "--ca-dir", caDirectory, "--cacert", certificates.caCertificate]) { proxy in
                let recorded = try await curl(https.absoluteString + "/v1/me", proxy: proxy.url, asking: "--http2")
                #expect(recorded.status == 0, "\(recorded)")
                #expect(recorded.stdout.contains("HTTP/2 200"), "\(recorded)")
                #expect(recorded.stderr.contains("http_version=2\n"), "\(recorded)")
                #expect(recorded.stdout.contains("x-cassette: recorded"), "\(recorded)")
                #expect(via(recorded) == "curl", "\(recorded)")
                // The library's own client (libcurl, HTTP/2 over TLS when offered) keeps its idle
                // connection; stopping the proxy closes it rather than waiting for it.
                let client = try await libraryClient(base: https, proxy: proxy.url)
                let answer = try await client.request(
                    url: https.appending(pathAndQuery: "/v1/library"), method: .get, headers: nil, body: nil, responseType: [String: String].self)
                #expect(answer["via"] == "library")
                await proxy.stop()
                #expect(proxy.summaryLine?.hasPrefix("recorded 2,") == true, "\(proxy.outputLines)")
            }
        }
        try await withInProcessReplayer(store: store, arguments: ["--forward", "--ca-dir", caDirectory]) { proxy in
            let replayed = try await curl(httpsURL.absoluteString + "/v1/me", proxy: proxy.url, asking: "--http2")
            #expect(replayed.stdout.contains("HTTP/2 200"), "\(replayed)")
            #expect(replayed.stderr.contains("http_version=2\n"), "\(replayed)")
            #expect(replayed.stdout.contains("x-cassette: hit"), "\(replayed)")
            #expect(via(replayed) == "curl", "\(replayed)")
            // A client that offers only HTTP/1.1 is still served over it.
            let http1 = try await curl(httpsURL.absoluteString + "/v1/me", proxy: proxy.url, asking: "--http1.1")
            #expect(http1.stderr.contains("http_version=1.1\n"), "\(http1)")
            #expect(http1.stdout.lowercased().contains("x-cassette: hit"), "\(http1)")
            #expect(via(http1) == "curl", "\(http1)")
        }
    }

    @Test func aClientThatDoesNotTrustTheAuthorityIsOneClearLogLine() async throws {
        try await withUpstreams { https, _, certificates in
            try await withForwardRecorder(arguments: ["--forward", "--ca-dir", caDirectory, "--cacert", certificates.caCertificate]) { proxy in
                // The test CA, not cassette's: the client rejects the certificate it is shown.
                let curl = try await ForwardProxyClients.curl(
                    https.absoluteString + "/v1/me", proxy: proxy.url, cacert: certificates.caCertificate, in: workspace.directory)
                #expect(curl.status == 60, "\(curl)")
                try await proxy.waitForLogLine(containing: "TLS for localhost failed")
                let line = try #require(proxy.outputLines.first { $0.contains("TLS for localhost failed") })
                #expect(line.contains("`cassette ca path`") && line.contains(cassetteCA), "\(line)")
                let python = try await ForwardProxyClients.python(
                    https.absoluteString + "/v1/python", proxy: proxy.url, verify: certificates.caCertificate, in: workspace.directory)
                #expect(python.status == 3, "\(python)")
                await proxy.stop()
                #expect(proxy.outputLines.filter { $0.contains("TLS for localhost failed") }.count == 2, "\(proxy.outputLines)")
            }
        }
        #expect(try await StoreFiles.interactions(at: store).isEmpty)
    }

}
