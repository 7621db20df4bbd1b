import CassetteProxy
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// A malformed request in a pipelined burst ends the connection, but never the answers before it:
/// the proxy writes them and the 400, shuts its write side and drains what the client still sends
/// before it closes (a lingering close). A plain close with unread input would send a reset, and
/// the client's kernel would throw away the answers it had not read yet. On a real socket, in every
/// mode that serves a connection.
@Suite("Proxy lingering close")
final class ProxyLingeringCloseTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("c.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    static let before = 20
    static let after = 200
    /// A header line without a colon: the parser's error.
    static let malformed = "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nthis is no header\r\n\r\n"

    /// The burst, in one write: `before` valid requests for `target`, the malformed one, `after` more.
    static func burst(_ request: String) -> String {
        String(repeating: request, count: before) + malformed + String(repeating: request, count: after)
    }

    /// Sends the burst on a new connection to `port` and checks the whole end of it.
    func expectAnswersBeforeTheMalformedRequest(port: Int, request: String = RawConnection.get("/api/health"), _ mode: Comment) async throws {
        let connection = try await RawConnection.connect(port: port)
        try await connection.send(Self.burst(request))
        let (bytes, reset) = try await connection.receiveToEnd()
        let answers = RawHTTPResponse.parseAll(bytes)
        #expect(!reset, "\(mode): the connection was reset after \(answers.count) answers")
        #expect(answers.count == Self.before + 1, "\(mode): \(answers.map(\.status))")
        #expect(answers.prefix(Self.before).allSatisfy { $0.status == 200 }, "\(mode): \(answers.map(\.status))")
        #expect(answers.last?.status == 400, "\(mode)")
        #expect(answers.last?.bodyText.contains("not valid HTTP/1.1") == true, "\(mode): \(answers.last?.bodyText ?? "")")
    }

    @Test func recordingAnswersEveryRequestBeforeAMalformedOneWithoutAReset() async throws {
        try await withSampleAPI { api async throws in
            try await withInProcessRecorder(upstream: api, store: store) { recorder async throws in
                try await expectAnswersBeforeTheMalformedRequest(port: recorder.url.port!, "record")
                // Nothing behind the malformed request was forwarded.
                await recorder.stop()
            }
        }
        let recorded = try await StoreFiles.interactions(at: store)
        #expect(recorded.count == Self.before, "a repeat records again in mode missing: \(recorded.count)")
    }

    @Test func replayAnswersEveryRequestBeforeAMalformedOneWithoutAReset() async throws {
        try await withSampleAPI { api async throws in
            try await withInProcessRecorder(upstream: api, store: store) { recorder async throws in
                #expect(try await recorder.get("/api/health").statusCode == 200)
            }
        }
        try await withInProcessReplayer(store: store, arguments: ["--sequence", "repeat-last"]) { replayer async throws in
            try await expectAnswersBeforeTheMalformedRequest(port: replayer.url.port!, "replay")
        }
    }

    @Test func aSessionAnswersEveryRequestBeforeAMalformedOneWithoutAReset() async throws {
        try await withSampleAPI { api async throws in
            try await withInProcessRecorder(upstream: api, store: store) { recorder async throws in
                let session = try await recorder.openSession("burst", mode: "missing")
                try await expectAnswersBeforeTheMalformedRequest(port: session.port, "session")
            }
        }
    }

    @Test func aForwardProxyAnswersEveryRequestBeforeAMalformedOneWithoutAReset() async throws {
        try await withSampleAPI { api async throws in
            let arguments = ["record", "--port", "0", "--db", store, "--forward", "--ca-dir", workspace.path("ca")]
            try await withInProcessProxy(arguments) { proxy async throws in
                let absolute = "GET \(api.absoluteString)/api/health HTTP/1.1\r\nHost: \(api.host!):\(api.port!)\r\n\r\n"
                try await expectAnswersBeforeTheMalformedRequest(port: proxy.url.port!, request: absolute, "forward")
            }
        }
    }
}
