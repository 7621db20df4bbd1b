#if canImport(CCurl)
import Foundation
import TestSupport
import Testing
import WellPlateCore

/// Credentials in every form the request parser accepts, sent on raw connections: userinfo in
/// an absolute-form target (user and password, or a token as the user name), Basic credentials
/// under a header no rule names (in either case of the scheme), secret query values under names
/// the rules know. No printed line and no byte of the store holds any of them, and the same
/// requests replay.
@Suite("Proxy: credentials never logged")
final class ProxyLogCredentialsTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("log.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    static let password = "s3cr3t-Passw0rd"
    static let userToken = "ghp_4b1Qz8TokenAsUser77"
    static let basicPassword = "basic-pw-9931"
    static var basic: String { Data("carol:\(basicPassword)".utf8).base64EncodedString() }
    static let apiKey = "kV-77-query-key"

    static var secrets: [String] { [password, userToken, basicPassword, basic, "carol:\(basicPassword)", apiKey] }

    static func requests(port: Int) -> [String] {
        [
            "GET http://alice:\(password)@127.0.0.1:\(port)/api/echo?form=userinfo HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
            "GET http://\(userToken)@127.0.0.1:\(port)/api/echo?form=user-token HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
            "GET /api/echo?form=basic HTTP/1.1\r\nHost: x\r\nX-Upstream-Auth: Basic \(basic)\r\nConnection: close\r\n\r\n",
            "GET /api/echo?form=basic-lower&echo=\(basicPassword) HTTP/1.1\r\nHost: x\r\nX-Proxy-Creds: basic \(basic)\r\nConnection: close\r\n\r\n",
            "GET /api/echo?form=query&api_key=\(apiKey)&Access_Token=\(apiKey) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        ]
    }

    func send(_ request: String, port: Int) async throws -> String {
        let connection = try await RawConnection.connect(port: port)
        try await connection.send(request)
        return try await connection.receiveUntilClosed().text
    }

    func leaks(_ text: String) -> [String] {
        Self.secrets.filter { text.contains($0) }
    }

    @Test func noCredentialIsPrintedOrStoredAndTheRequestsReplay() async throws {
        try await withSampleAPI { api async throws in
            try await withInProcessRecorder(upstream: api, store: store) { recorder async throws in
                for request in Self.requests(port: recorder.port) {
                    let answer = try await send(request, port: recorder.port)
                    #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
                    #expect(answer.contains("X-Cassette: recorded"), "\(answer)")
                }
                try await recorder.waitForLogLine(containing: "form=query")
                await recorder.stop()
                #expect(leaks(recorder.standardOutput + recorder.standardError) == [])
                let log = recorder.standardOutput
                #expect(log.contains("GET http://REDACTED@127.0.0.1:\(recorder.port)/api/echo?form=userinfo 200"), "\(log)")
                #expect(log.contains("/api/echo?form=basic-lower&echo=REDACTED 200"), "\(log)")
                #expect(log.contains("api_key=REDACTED&Access_Token=REDACTED"), "\(log)")
            }
        }
        for secret in Self.secrets {
            #expect(try StoreFiles.files(at: store, containing: secret) == [], "\(secret) in the store")
        }
        try await withInProcessReplayer(store: store) { replayer async throws in
            for request in Self.requests(port: replayer.port) {
                let answer = try await send(request, port: replayer.port)
                #expect(answer.contains("X-Cassette: hit"), "\(answer)")
            }
            await replayer.stop()
            #expect(leaks(replayer.standardOutput + replayer.standardError) == [])
        }
    }
}
#endif
