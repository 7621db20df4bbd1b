import CassetteProxy
import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// A header value in latin-1 (Python's http.server writes `X-Note: café` with the single byte
/// 0xE9) passes through `record`, into the store and out of `replay` byte for byte.
@Suite("Proxy raw header bytes")
final class ProxyRawHeaderBytesTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("c.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    static let latin1Note: [UInt8] = Array("X-Note: caf".utf8) + [0xE9] + Array("\r\n".utf8)
    static let utf8Note: [UInt8] = Array("X-Note: café".utf8)

    private func rawHead(port: Int) async throws -> [UInt8] {
        let connection = try await RawConnection.connect(port: port)
        try await connection.send("GET /api/latin1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        return try await connection.receiveUntilClosed()
    }

    @Test func aLatin1HeaderIsRecordedStoredAndReplayedByteForByte() async throws {
        try await PythonUpstream.with(in: workspace.directory.path) { base in
            // The libcurl transport keeps the byte.
            let direct = try await ProxyClient.send(.get, base.appending(pathAndQuery: "/api/latin1"))
            let note = try #require(direct.headerFields.first { $0.name.canonicalName == "x-note" })
            #expect(note.withUnsafeBytesOfValue { Array($0) } == Array("caf".utf8) + [0xE9])

            try await withInProcessRecorder(upstream: base, store: store) { recorder async throws in
                let bytes = try await rawHead(port: recorder.port)
                #expect(bytes.contains(subsequence: Self.latin1Note), "\(bytes.text)")
                #expect(!bytes.contains(subsequence: Self.utf8Note))
            }
        }
        let stored = try #require(try await StoreFiles.interactions(at: store).first)
        let field = try #require(stored.responseHeaders.first { $0.name.canonicalName == "content-disposition" })
        #expect(
            field.withUnsafeBytesOfValue { Array($0) } == Array("attachment; filename=\"r".utf8) + [0xE9] + Array("sum".utf8) + [0xE9] + Array(".txt\"".utf8))

        try await withInProcessReplayer(store: store) { replayer async throws in
            let bytes = try await rawHead(port: replayer.port)
            #expect(bytes.contains(subsequence: Self.latin1Note), "\(bytes.text)")
            #expect(bytes.contains(subsequence: Array("X-Cassette: hit".utf8)))
        }
    }
}

private extension Array where Element == UInt8 {
    func contains(subsequence: [UInt8]) -> Bool {
        guard subsequence.count <= count else { return false }
        return (0...(count - subsequence.count)).contains { self[$0..<($0 + subsequence.count)].elementsEqual(subsequence) }
    }
}
