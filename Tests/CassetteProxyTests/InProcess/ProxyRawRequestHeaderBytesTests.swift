import CassetteProxy
import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// A request header value in latin-1 (`X-Name: caf` + 0xE9) reaches the upstream byte for byte
/// while recording, is stored so, and keys a replay (with `matchHeaders`) the same way; request
/// bodies with the same bytes are never touched.
@Suite("Proxy raw request header bytes")
final class ProxyRawRequestHeaderBytesTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("c.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    static let latin1Name: [UInt8] = Array("caf".utf8) + [0xE9]

    /// `GET /echo-name` with `X-Name: VALUE` (raw bytes) on a new connection; the whole answer.
    private func echoName(_ value: [UInt8], port: Int) async throws -> String {
        let connection = try await RawConnection.connect(port: port)
        try await connection.send(Array("GET /echo-name HTTP/1.1\r\nHost: x\r\nX-Name: ".utf8) + value + Array("\r\nConnection: close\r\n\r\n".utf8))
        return try await connection.receiveUntilClosed().text
    }

    @Test func aLatin1RequestHeaderReachesTheUpstreamAndTheStoreByteForByte() async throws {
        try await LinkingUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessRecorder(upstream: base, store: store) { recorder in
                let latin1 = try await echoName(Self.latin1Name, port: recorder.port)
                #expect(latin1.contains(#""hex": "636166e9""#), "\(latin1)")
                // Valid UTF-8 stays as it is.
                let utf8 = try await echoName(Array("café".utf8), port: recorder.port)
                #expect(utf8.contains(#""hex": "636166c3a9""#), "\(utf8)")
            }
        }
        let stored = try await StoreFiles.interactions(at: store)
        let values = stored.compactMap { $0.requestHeaders[HTTPField.Name("X-Name")!] }.count
        #expect(values == 2)
        let bytes = Set(
            stored.compactMap { interaction in
                interaction.requestHeaders.first { $0.name.canonicalName == "x-name" }.map { $0.withUnsafeBytesOfValue { Array($0) } }
            })
        #expect(bytes == [Self.latin1Name, Array("café".utf8)])
    }

    @Test func bodiesWithTheSameBytesPassUntouchedAlsoWhenPipelinedWithALatin1Head() async throws {
        let body = [UInt8](repeating: 0xE9, count: 3000) + [0xFF, 0x80, 0xC3]
        try await LinkingUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessRecorder(upstream: base, store: store) { recorder in
                let connection = try await recorder.connect()
                let upload =
                    Array("POST /upload HTTP/1.1\r\nHost: x\r\nX-Name: ".utf8) + Self.latin1Name
                    + Array("\r\nContent-Type: application/octet-stream\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
                let echo = Array("GET /echo-name HTTP/1.1\r\nHost: x\r\nX-Name: ".utf8) + Self.latin1Name + Array("\r\nConnection: close\r\n\r\n".utf8)
                try await connection.send(upload + echo)
                let answers = try await connection.receiveUntilClosed().text
                #expect(answers.contains(#""bytes": 3003"#), "\(answers)")
                #expect(answers.contains(#""hex": "636166e9""#), "\(answers)")
            }
        }
        let stored = try await StoreFiles.interactions(at: store)
        #expect(stored.first { $0.method == .post }?.requestBody == Data(body))
    }

    @Test func matchHeadersKeysALatin1ValueTheSameInRecordAndReplay() async throws {
        try workspace.write(#"{"matchHeaders": ["X-Name"]}"#, to: "cassette.json")
        try await LinkingUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessProxy(["record", "--upstream", base.absoluteString, "--port", "0", "--db", store] + workspace.configArguments) {
                recorder async throws in
                let answer = try await echoName(Self.latin1Name, port: recorder.port)
                #expect(answer.contains("636166e9"), "\(answer)")
            }
        }
        try await withInProcessProxy(["replay", "--port", "0", "--db", store] + workspace.configArguments) { replayer async throws in
            let hit = try await echoName(Self.latin1Name, port: replayer.port)
            #expect(hit.contains("X-Cassette: hit") && hit.contains("636166e9"), "\(hit)")
            let other = try await echoName(Array("cafe".utf8), port: replayer.port)
            #expect(other.contains("X-Cassette: miss"), "\(other)")
        }
    }

    /// A replay whose keys are all ASCII reads request heads as NIO decodes them: a latin-1 value
    /// in a header outside the key still hits, one in a keyed (conditional) header misses, and the
    /// connection carries on with the next pipelined request.
    @Test func aReplayWithASCIIKeysAnswersLatin1HeadsAsBefore() async throws {
        try await LinkingUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessRecorder(upstream: base, store: store) { recorder in
                let answer = try await echoName(Array("cafe".utf8), port: recorder.port)
                #expect(answer.contains("X-Cassette: recorded"), "\(answer)")
            }
        }
        try await withInProcessReplayer(store: store) { replayer in
            let connection = try await RawConnection.connect(port: replayer.port)
            let unkeyed = Array("GET /echo-name HTTP/1.1\r\nHost: x\r\nX-Name: ".utf8) + Self.latin1Name + Array("\r\n\r\n".utf8)
            let conditional = Array("GET /echo-name HTTP/1.1\r\nHost: x\r\nIf-None-Match: ".utf8) + Self.latin1Name + Array("\r\n\r\n".utf8)
            let plain = Array("GET /echo-name HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)
            try await connection.send(unkeyed + conditional + plain)
            let answers = try await connection.receiveUntilClosed().text
            let outcomes = answers.components(separatedBy: "\r\n").filter { $0.hasPrefix("X-Cassette: ") }
            #expect(outcomes == ["X-Cassette: hit", "X-Cassette: miss", "X-Cassette: hit"], "\(answers)")
            #expect(answers.components(separatedBy: #""hex": "63616665""#).count == 3, "both hits replay the recorded ASCII name: \(answers)")
        }
    }
}
