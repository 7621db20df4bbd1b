import CassetteProxy
import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// `cassette record` (a child process) in front of an upstream that streams (`StreamingUpstream`):
/// Server-Sent Events reach the client while the upstream is still sending, the recording keeps
/// when each piece arrived, replay sends the same pieces (paced with `--latency recorded`), an
/// upstream that breaks off is never stored, and large bodies pass byte-exact.
@Suite("Proxy with a streaming upstream")
final class ProxyStreamingTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("c.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    @Test func serverSentEventsReachTheClientBeforeTheUpstreamFinishesAndReplayInTheirPieces() async throws {
        try await StreamingUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessRecorder(upstream: base, store: store) { recorder in
                let connection = try await recorder.connect()
                try await connection.send(RawConnection.get("/sse"))
                let first = try await connection.receive { $0.text.contains("data: one") }
                // The upstream sends nothing more until /release: the first event came on its own.
                let head = first.text.lowercased()
                #expect(head.hasPrefix("http/1.1 200"))
                #expect(head.contains("transfer-encoding: chunked"))
                #expect(head.contains("x-cassette: recorded"))
                #expect(!head.contains("data: two"))
                _ = try await ProxyClient.send(.get, base.appending(pathAndQuery: "/release"))
                var received = first
                received += try await connection.receive { Self.body(of: first + $0) != nil }
                #expect(Self.body(of: received)?.text == "data: one\n\ndata: two\n\ndata: three\n\n")
                await recorder.stop()
            }
        }
        let recording = try #require(try await StoreFiles.interactions(at: store).first)
        #expect(recording.responseBody.text == "data: one\n\ndata: two\n\ndata: three\n\n")
        let chunks = try #require(try await chunks(of: recording))
        #expect(chunks.map(\.size).reduce(0, +) == recording.responseBody.count)
        #expect(chunks.count >= 2)
        // The upstream sleeps 200 ms before the last event. The gap is recorded as the proxy read
        // the chunks, so a loaded machine that read the one before late shortens it: 50 ms still
        // tells a recorded pause from chunks that arrived together.
        let last = try #require(chunks.last)
        #expect(last.size == "data: three\n\n".utf8.count)
        #expect(last.offset - chunks[chunks.count - 2].offset >= .milliseconds(50))

        try await withInProcessReplayer(store: store) { replayer in
            let connection = try await replayer.connect()
            try await connection.send(RawConnection.get("/sse"))
            let bytes = try await connection.receive { Self.body(of: $0) != nil }
            #expect(bytes.text.lowercased().contains("x-cassette: hit"))
            #expect(Self.body(of: bytes)?.text == recording.responseBody.text)
            #expect(Self.chunkSizes(of: bytes) == chunks.map(\.size))
        }

        try await withInProcessReplayer(store: store, arguments: ["--latency", "recorded"]) { replayer in
            let connection = try await replayer.connect()
            let sent = ContinuousClock.now
            try await connection.send(RawConnection.get("/sse"))
            let bytes = try await connection.receive { Self.body(of: $0) != nil }
            // A lower bound only: the last piece cannot arrive before its recorded offset. (How
            // soon this test reads the first piece depends on the machine's load.)
            let span = last.offset - chunks[0].offset
            #expect(ContinuousClock.now - sent >= span * 0.8, "the recorded span was \(span)")
            #expect(Self.body(of: bytes)?.text == recording.responseBody.text)
        }
    }

    /// `--upstream-timeout` bounds a stream's silences, not its length: a feed that outlasts it
    /// while sending more often passes whole; one that goes quiet for longer is cut, not recorded.
    @Test func upstreamTimeoutBoundsAStreamsSilencesNotItsLength() async throws {
        try await StreamingUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessRecorder(upstream: base, store: store, arguments: ["--upstream-timeout", "1"]) { recorder in
                let connection = try await recorder.connect()
                let sent = ContinuousClock.now
                try await connection.send(RawConnection.get("/ticks?count=7&gap=400"))
                let bytes = try await connection.receive { Self.body(of: $0) != nil }
                #expect(ContinuousClock.now - sent >= .milliseconds(2400), "seven events 400 ms apart outlast the 1 s timeout")
                #expect(Self.body(of: bytes)?.text == (0..<7).map { "data: \($0)\n\n" }.joined())

                let quiet = try await recorder.connect()
                // libcurl averages the rate over its last 5 s, so a silence is cut between 1 and 6 s.
                try await quiet.send(RawConnection.get("/ticks?count=2&gap=9000"))
                let cut = try await quiet.receiveUntilClosed()
                #expect(cut.text.contains("data: 0"))
                #expect(!cut.text.contains("data: 1"))
                #expect(Self.body(of: cut) == nil, "closed without the final chunk")
                try await recorder.waitForLogLine(containing: "upstream went silent for longer than --upstream-timeout after 9 bytes; not recorded")
                await recorder.stop()
            }
        }
        let recorded = try await StoreFiles.interactions(at: store).map(\.url)
        #expect(recorded.count == 1)
        #expect(recorded.allSatisfy { $0.contains("count=7") })
    }

    @Test func anUpstreamThatBreaksOffReachesTheClientAsAnAbortAndIsNotRecorded() async throws {
        try await StreamingUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessRecorder(upstream: base, store: store) { recorder in
                let connection = try await recorder.connect()
                try await connection.send(RawConnection.get("/abort"))
                let bytes = try await connection.receiveUntilClosed()
                #expect(bytes.text.contains("data: partial"))
                // Closed without the final chunk: no client can take it for a whole answer.
                #expect(Self.body(of: bytes) == nil)
                try await recorder.waitForLogLine(containing: "upstream aborted after 15 bytes; not recorded")
                await recorder.stop()
                #expect(recorder.summaryLine?.hasPrefix("recorded 0,") == true)
            }
        }
        #expect(try await StoreFiles.interactions(at: store).isEmpty)
    }

    @Test(arguments: ["/large", "/large-chunked"])
    func aLargeBodyIsForwardedStoredAndReplayedByteExact(path: String) async throws {
        let size = 6 * 1024 * 1024 + 3
        let target = "\(path)?size=\(size)"
        try await StreamingUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessRecorder(upstream: base, store: store) { recorder in
                let response = try await recorder.get(target)
                #expect(response.cassetteSource == "recorded")
                #expect(response.body == binaryPattern(size: size))
                // The upstream's framing is kept: a length when it gave one, chunked when not.
                #expect(response.headerFields[.contentLength] == (path == "/large" ? String(size) : nil))
                if path == "/large-chunked" {
                    // A streamed head leads back to the proxy like any other.
                    #expect(response.headerFields[HTTPField.Name("Link")!] == "<http://127.0.0.1:\(recorder.port)/large-chunked?page=2>; rel=\"next\"")
                }
                await recorder.stop()
            }
        }
        let recording = try #require(try await StoreFiles.interactions(at: store).first)
        #expect(recording.responseBody == binaryPattern(size: size))
        #expect(try await chunks(of: recording) != nil, "stored as a stream")
        #expect(recording.responseHeaders[.contentLength] == (path == "/large" ? String(size) : nil), "stored with the framing recorded")
        try await withInProcessReplayer(store: store) { replayer in
            let response = try await replayer.get(target)
            #expect(response.cassetteSource == "hit")
            #expect(response.body == binaryPattern(size: size))
            // Framed as recorded: with its length when it had one, chunked when it was chunked.
            #expect(response.headerFields[.contentLength] == (path == "/large" ? String(size) : nil))
            let connection = try await replayer.connect()
            try await connection.send(RawConnection.get(target))
            let head = try await connection.receive { $0.text.contains("\r\n\r\n") }.text.lowercased()
            #expect(head.contains("content-length: \(size)\r\n") == (path == "/large"))
            #expect(head.contains("transfer-encoding: chunked\r\n") == (path == "/large-chunked"))
        }
    }

    @Test func replayPassesAMissThroughAsItStreamsWithoutStoringIt() async throws {
        try await StreamingUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessRecorder(upstream: base, store: store) { recorder async throws in
                #expect(try await recorder.get("/large?size=10").statusCode == 200)
                await recorder.stop()
            }
            try await withInProcessReplayer(store: store, arguments: ["--upstream", base.absoluteString, "--on-miss", "passthrough"]) { replayer in
                let connection = try await replayer.connect()
                try await connection.send(RawConnection.get("/sse"))
                let first = try await connection.receive { $0.text.contains("data: one") }
                #expect(first.text.lowercased().contains("x-cassette: passthrough"))
                #expect(!first.text.contains("data: two"))
                _ = try await ProxyClient.send(.get, base.appending(pathAndQuery: "/release"))
                let rest = try await connection.receive { Self.body(of: first + $0) != nil }
                #expect(Self.body(of: first + rest)?.text == "data: one\n\ndata: two\n\ndata: three\n\n")
            }
        }
        let urls = try await StoreFiles.interactions(at: store).map(\.url)
        #expect(urls.count == 1)
        #expect(urls.first?.hasSuffix("/large?size=10") == true)
    }

    // MARK: Helpers

    /// The body of a complete chunked response in `bytes`, `nil` until its final chunk arrived.
    private static func body(of bytes: [UInt8]) -> [UInt8]? {
        guard let headEnd = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
        return StreamingUpstream.dechunked(bytes[headEnd.upperBound...])
    }

    /// The sizes of the chunks of a complete chunked response, in order.
    private static func chunkSizes(of bytes: [UInt8]) -> [Int] {
        guard let headEnd = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return [] }
        var rest = bytes[headEnd.upperBound...]
        var sizes: [Int] = []
        while let end = rest.firstRange(of: [13, 10]), let size = Int(String(decoding: rest[..<end.lowerBound], as: UTF8.self), radix: 16), size > 0 {
            sizes.append(size)
            rest = rest.dropFirst(rest.distance(from: rest.startIndex, to: end.upperBound) + size + 2)
        }
        return sizes
    }

    private func chunks(of recording: Interaction) async throws -> [ResponseChunk]? {
        let opened = try await CassetteStore.open(path: store, access: .readOnly)
        let chunks = try await opened.chunks(ofInteraction: try #require(recording.id))
        try await opened.close()
        return chunks
    }
}

private extension Data {
    var text: String { String(decoding: self, as: UTF8.self) }
}
