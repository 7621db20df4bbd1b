#if canImport(CCurl)
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// The hand-over between libcurl's thread and a streamed reader, driven the way the loop drives
/// it: callbacks during a pass, then one `wake()` (or `finish`) after it.
@Suite("Curl stream sink")
struct CurlStreamSinkTests {
    private func sink() -> CurlStreamSink {
        CurlStreamSink(highWater: 1024, resume: {}, cancel: {})
    }

    private func waitUntilReaderWaits(_ sink: CurlStreamSink) async {
        while !sink.readerIsWaiting { await Task.yield() }
    }

    private func offer(_ sink: CurlStreamSink, _ text: String) -> Bool {
        Array(text.utf8).withUnsafeBytes { sink.offer($0) }
    }

    @Test func aWaitingReaderGetsEverythingOfOnePassAfterTheWake() async throws {
        let sink = sink()
        let reader = Task { try await sink.head() }
        await waitUntilReaderWaits(sink)
        sink.deliverHead(TransportResponseHead(statusCode: 201))
        #expect(offer(sink, "one"))
        #expect(offer(sink, "two"))
        sink.wake()
        #expect(try await reader.value.statusCode == 201)
        #expect(try await sink.next() == Data("one".utf8))
        #expect(try await sink.next() == Data("two".utf8))
    }

    @Test func aReaderWaitingForAChunkGetsTheLastOneKeptBeforeTheEnd() async throws {
        let sink = sink()
        sink.deliverHead(TransportResponseHead(statusCode: 200))
        sink.wake()
        _ = try await sink.head()
        let reader = Task { () throws -> [Data] in
            var chunks: [Data] = []
            while let chunk = try await sink.next() { chunks.append(chunk) }
            return chunks
        }
        await waitUntilReaderWaits(sink)
        // The transfer's last bytes and its end in the same pass, with no wake between them.
        #expect(offer(sink, "last"))
        sink.finish(.success(TransportResponseHead(statusCode: 200)))
        #expect(try await reader.value == [Data("last".utf8)])
    }

    @Test func anOfferBeyondTheHighWaterMarkIsRefusedAndTheReaderCatchingUpResumesIt() async throws {
        let resumed = Atomic(0)
        let sink = CurlStreamSink(highWater: 4, resume: { resumed.add(1, ordering: .relaxed) }, cancel: {})
        #expect(offer(sink, "abcd"))
        #expect(!offer(sink, "e"))
        #expect(try await sink.next() == Data("abcd".utf8))
        #expect(resumed.load(ordering: .relaxed) == 1)
    }
}

@Suite("Pending stream")
struct PendingStreamTests {
    @Test func droppedUnreadItAbandonsTheTransferOnce() {
        let abandoned = Atomic(0)
        do {
            _ = PendingStream({ throw CancellationError() }, abandon: { abandoned.add(1, ordering: .relaxed) })
        }
        #expect(abandoned.load(ordering: .relaxed) == 1)
    }

    @Test func readItLeavesTheTransferToTheBody() async throws {
        let abandoned = Atomic(0)
        do {
            let pending = PendingStream(
                { StreamedResponse(head: TransportResponseHead(statusCode: 204), body: TransportBodyStream(chunks: [])) },
                abandon: { abandoned.add(1, ordering: .relaxed) })
            #expect(try await pending.response().head.statusCode == 204)
        }
        #expect(abandoned.load(ordering: .relaxed) == 0)
    }
}
#endif
