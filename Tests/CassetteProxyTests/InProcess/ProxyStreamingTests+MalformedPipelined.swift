import CassetteProxy
import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

extension ProxyStreamingTests {
    /// A request that is not HTTP/1.1, pipelined behind one whose answer is still going out in
    /// recorded pieces, never cuts that answer short or lands inside it: the whole answer comes
    /// first, then the 400 that explains the garbage, then the connection closes.
    @Test func garbagePipelinedBehindAStreamedReplayGets400OnlyAfterTheWholeAnswer() async throws {
        try await StreamingUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessRecorder(upstream: base, store: store) { recorder in
                let connection = try await recorder.connect()
                try await connection.send(RawConnection.get("/sse"))
                _ = try await connection.receive { $0.text.contains("data: one") }
                _ = try await ProxyClient.send(.get, base.appending(pathAndQuery: "/release"))
                _ = try await connection.receive { $0.text.contains("0\r\n\r\n") }
                await recorder.stop()
            }
        }
        let recorded = "data: one\n\ndata: two\n\ndata: three\n\n"

        try await withInProcessReplayer(store: store, arguments: ["--latency", "recorded"]) { replayer in
            let connection = try await replayer.connect()
            // One write: the garbage reaches the proxy while the first answer waits for its pieces.
            try await connection.send(RawConnection.get("/sse") + "NOT HTTP AT ALL\r\n\r\n")
            let bytes = try await connection.receiveUntilClosed()
            let headEnd = try #require(bytes.firstRange(of: Array("\r\n\r\n".utf8)))
            #expect(bytes.text.lowercased().hasPrefix("http/1.1 200"))
            #expect(StreamingUpstream.dechunked(bytes[headEnd.upperBound...]).map { String(decoding: $0, as: UTF8.self) } == recorded)
            let end = try #require(bytes.firstRange(of: Array("\r\n0\r\n\r\n".utf8)), "\(bytes.text)")
            let after = RawHTTPResponse.parseAll(Array(bytes[end.upperBound...]))
            #expect(after.count == 1, "\(bytes.text)")
            #expect(after.first?.status == 400)
            #expect(after.first?.header("Connection")?.lowercased() == "close")
            #expect(after.first?.bodyText.contains("not valid HTTP/1.1") == true)
        }
    }
}
