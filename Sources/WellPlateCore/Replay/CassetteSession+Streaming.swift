import Foundation

/// Answering requests whose responses stream: the head and each body chunk are handed to the
/// caller as the upstream sends them, and the recording is stored once the body is complete.
extension CassetteSession {
    /// Which upstream responses are handed over as they arrive rather than whole.
    package struct StreamingPolicy: Sendable {
        /// Bodies announced larger than this stream; smaller ones (most JSON answers) come whole.
        package var threshold: Int

        package init(threshold: Int = 256 * 1024) {
            self.threshold = threshold
        }

        /// Server-Sent Events, bodies of unknown length, and bodies above `threshold` (as sent:
        /// a small compressed answer stays whole).
        package func streams(_ head: TransportResponseHead) -> Bool {
            if let type = head.headerFields[.contentType], type.lowercased().hasPrefix("text/event-stream") { return true }
            guard let length = head.wireContentLength else { return (200..<600).contains(head.statusCode) && HTTPFraming.statusAllowsBody(head.statusCode) }
            return length > threshold
        }
    }

    package enum StreamingAnswer: Sendable {
        /// Replayed, or a response that does not stream: as `respond(to:)` returns it.
        case whole(Exchange)
        /// Read the body with `StreamingExchange.next()`, then call `finish()`.
        case streaming(StreamingExchange)
    }

    /// `respond(to:)` for callers that forward the response as it arrives (the proxy). A response
    /// `policy` streams is stored only once its body is complete; one the upstream breaks off is
    /// never stored.
    /// `own`: the address of the proxy the request came in by (`respond(to:own:)`).
    package func respondStreaming(to request: TransportRequest, policy: StreamingPolicy, own: OwnAddress? = nil) async throws -> StreamingAnswer {
        try await explainingMisses(of: request) { try await respondStreamingUnexplained(to: request, policy: policy, own: own) }
    }

    private func respondStreamingUnexplained(to request: TransportRequest, policy: StreamingPolicy, own: OwnAddress?) async throws -> StreamingAnswer {
        let (redacted, key, secrets) = redactedWithKey(own?.placeholding(request) ?? request)
        switch step(for: key) {
        case .replay(let orPassthrough):
            do {
                return .whole(try replay(key: key, echoing: request.headerFields))
            } catch is CassetteMiss where orPassthrough {
                return try await forward(request, redacted: request, key: key, secrets: SecretValues(), records: false, policy: policy)
            }
        case .record:
            return try await forward(request, redacted: redacted, key: key, secrets: secrets, records: true, policy: policy, own: own)
        }
    }

    /// `passthrough(_:)` for callers that forward the response as it arrives; nothing is stored.
    package func passthroughStreaming(_ request: TransportRequest, policy: StreamingPolicy) async throws -> StreamingAnswer {
        try await forward(request, redacted: request, key: key(for: request), secrets: SecretValues(), records: false, policy: policy)
    }

    private func forward(
        _ request: TransportRequest, redacted: TransportRequest, key: RequestKey, secrets: SecretValues, records: Bool, policy: StreamingPolicy,
        own: OwnAddress? = nil
    ) async throws -> StreamingAnswer {
        let transport = try requireUpstream()
        guard let upstream = transport as? any StreamingHTTPTransport else {
            // Redacted and keyed already: answered whole, without doing that again.
            if records {
                return .whole(try await record(request, redacted: redacted, key: key, secrets: secrets, own: own))
            }
            let response = try await transport.send(request)
            passthroughCount.add(1, ordering: .relaxed)
            return .whole(Exchange(response: response, outcome: .passthrough, key: key, interaction: nil))
        }
        let recordedAt = Date()
        let pending = try upstream.startStreaming(request)
        // While the store is busy its queue is the bottleneck, and the recording's own CPU work
        // (redaction, collecting the body) stays with the caller, spread over its threads.
        guard records, store.recordingQueue.isIdle else {
            return try await answer(
                pending, request: request, redacted: redacted, key: key, secrets: secrets, recordedAt: recordedAt, records: records, policy: policy,
                own: own)
        }
        // An idle store: from its head to its commit the recording waits on the store's queue.
        return try await withTaskExecutorPreference(store.recordingTaskExecutor) {
            try await answer(
                pending, request: request, redacted: redacted, key: key, secrets: secrets, recordedAt: recordedAt, records: true, policy: policy, own: own)
        }
    }

    private func answer(
        _ pending: PendingStream, request: TransportRequest, redacted: TransportRequest, key: RequestKey, secrets: SecretValues, recordedAt: Date,
        records: Bool, policy: StreamingPolicy, own: OwnAddress?
    ) async throws -> StreamingAnswer {
        let streamed = try await pending.response()
        guard policy.streams(streamed.head) else {
            let response = try await streamed.collected()
            if records {
                return .whole(try await keep(response, for: request, redacted: redacted, key: key, secrets: secrets, recordedAt: recordedAt, own: own))
            }
            passthroughCount.add(1, ordering: .relaxed)
            return .whole(Exchange(response: response, outcome: .passthrough, key: key, interaction: nil))
        }
        return .streaming(
            StreamingExchange(
                session: self, streamed: streamed, request: request, redacted: redacted, key: key, secrets: secrets, recordedAt: recordedAt, records: records,
                own: own))
    }
}

/// A response on its way from the upstream: its head now, its body chunk by chunk. While
/// recording, the body is kept (once) and stored by `finish()`, with when each chunk arrived.
package struct StreamingExchange: Sendable {
    package let head: TransportResponseHead
    package let key: RequestKey
    /// `.recorded` or `.passthrough`.
    package let outcome: CassetteSession.Outcome
    /// Body bytes received so far.
    package private(set) var receivedBytes = 0

    private let session: CassetteSession
    private let streamed: StreamedResponse
    private var chunks: TransportBodyStream.Iterator
    private let request: TransportRequest
    private let redacted: TransportRequest
    /// The request's secrets, scrubbed from the stored response too.
    private let secrets: SecretValues
    private let recordedAt: Date
    /// The proxy's address, stored as its placeholder.
    private let own: OwnAddress?
    private var body = Data()
    private var pieces: [ResponseChunk] = []
    private var ended = false

    init(
        session: CassetteSession, streamed: StreamedResponse, request: TransportRequest, redacted: TransportRequest, key: RequestKey, secrets: SecretValues,
        recordedAt: Date, records: Bool, own: OwnAddress?
    ) {
        self.own = own
        self.session = session
        self.streamed = streamed
        self.request = request
        self.redacted = redacted
        self.key = key
        self.secrets = secrets
        self.recordedAt = recordedAt
        outcome = records ? .recorded : .passthrough
        head = streamed.head
        chunks = streamed.body.makeAsyncIterator()
    }

    /// The next body chunk, `nil` once the body is complete. Throws `TransportError` when the
    /// upstream broke off: nothing of this response is stored then.
    package mutating func next() async throws -> Data? {
        guard let chunk = try await chunks.next() else {
            ended = true
            return nil
        }
        receivedBytes += chunk.count
        if outcome == .recorded {
            if body.isEmpty, let length = head.contentLength {
                // The exact size up front: growing by doubling could hold twice the body. Not in
                // `init`: this value is copied on its way to the reader, and a copy sharing the
                // reserved storage would make the first append copy it without the reserve.
                body.reserveCapacity(max(length, chunk.count))
            }
            body.append(chunk)
            let offset = ContinuousClock.now - streamed.headReceived
            // Chunks that arrive together (a download at full speed) are one piece on replay.
            if let last = pieces.last, offset - last.offset < Self.coalescing {
                pieces[pieces.count - 1].size += chunk.count
            } else {
                pieces.append(ResponseChunk(offset: offset, size: chunk.count))
            }
        }
        return chunk
    }

    /// Stores the complete response (redacted, with its chunk times) and returns the exchange;
    /// for a passthrough, just counts it. Call after `next()` returned `nil`.
    /// Throws `RecordingFailure` when the store refused it.
    package mutating func finish() async throws -> CassetteSession.Exchange {
        precondition(ended, "finish() is for a body read to its end")
        var response = TransportResponse(
            statusCode: head.statusCode, headerFields: head.headerFields, body: body,
            decodedContentEncoding: head.decodedContentEncoding,
            duration: streamed.timeToHead + (ContinuousClock.now - streamed.headReceived))
        response.decodedContentEncodingPosition = head.decodedContentEncodingPosition
        body = Data()
        guard outcome == .recorded else {
            session.passthroughCount.add(1, ordering: .relaxed)
            return CassetteSession.Exchange(response: response, outcome: .passthrough, key: key, interaction: nil)
        }
        return try await session.keep(response, for: request, redacted: redacted, key: key, secrets: secrets, recordedAt: recordedAt, chunks: pieces, own: own)
    }

    private static let coalescing = Duration.milliseconds(2)
}
