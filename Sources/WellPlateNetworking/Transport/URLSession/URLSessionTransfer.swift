import Foundation
import HTTPTypes
import Synchronization
import WellPlateCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One data task of `URLSessionTransport`: the delegate's callbacks (`URLSessionTaskRouter`) on one
/// side, the caller awaiting the head and reading the body on the other, met under one lock.
final class URLSessionTransfer: TransportBodySource, Sendable {
    /// Why the transfer was stopped from this side, which decides the error its end reports.
    private enum Stop {
        case cancelled
        case timedOut
        case tooLarge
        case abandoned
    }

    private struct State {
        var headWaiter: CheckedContinuation<StreamedResponse, any Error>?
        var head: Result<StreamedResponse, any Error>?
        var chunks: [Data] = []
        var nextChunk = 0
        var reader: CheckedContinuation<Data?, any Error>?
        /// Set once the task completed: `nil` error for a complete body.
        var end: (any Error)??
        var received = 0
        var stop: Stop?
    }

    // URLSessionTask is documented thread-safe (`cancel()` from any thread) and Sendable on Apple
    // platforms; FoundationNetworking's is too.
    let task: URLSessionTask
    let followRedirects: Bool
    private let maxBodySize: Int
    private let displayURL: String
    private let sent = ContinuousClock.now
    private let state = Mutex(State())

    init(task: URLSessionTask, followRedirects: Bool, maxBodySize: Int, displayURL: String) {
        self.task = task
        self.followRedirects = followRedirects
        self.maxBodySize = maxBodySize
        self.displayURL = displayURL
    }

    // MARK: The caller's side

    /// Waits for the status and headers.
    func response() async throws -> StreamedResponse {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<StreamedResponse, any Error>? in
                if let head = state.head { return head }
                state.headWaiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    func next() async throws -> Data? {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<Data?, any Error>? in
                if state.nextChunk < state.chunks.count {
                    let chunk = state.chunks[state.nextChunk]
                    state.nextChunk += 1
                    if state.nextChunk == state.chunks.count {
                        state.chunks.removeAll(keepingCapacity: true)
                        state.nextChunk = 0
                    }
                    return .success(chunk)
                }
                if let end = state.end { return end.map { .failure($0) } ?? .success(nil) }
                state.reader = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    /// The reader dropped the body before its end.
    func abandon() {
        stop(.abandoned)
    }

    /// The calling task was cancelled.
    func cancel() {
        stop(.cancelled)
    }

    /// The exchange ran past its timeout.
    func expire() {
        stop(.timedOut)
    }

    private func stop(_ reason: Stop) {
        let running = state.withLock { state -> Bool in
            guard state.end == nil, state.stop == nil else { return false }
            state.stop = reason
            return true
        }
        if running { task.cancel() }
    }

    // MARK: The delegate's side

    func received(_ response: URLResponse) {
        guard let http = response as? HTTPURLResponse else {
            deliverHead(.failure(TransportError(.connectionLost, "\(displayURL): the answer is not HTTP")))
            return
        }
        var fields = HTTPFields()
        let headers = http.allHeaderFields.compactMap { key, value -> (String, String)? in
            guard let name = key as? String else { return nil }
            return (name, value as? String ?? String(describing: value))
        }
        for (name, value) in headers.sorted(by: { $0.0.lowercased() < $1.0.lowercased() }) {
            if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
        }
        var head = TransportResponseHead(statusCode: http.statusCode, headerFields: fields)
        // URLSession always decodes the encodings it asked for; the head says so as libcurl's does.
        if let encoding = fields[.contentEncoding]?.lowercased(), ["gzip", "x-gzip", "deflate", "br"].contains(encoding) {
            head.decodedContentEncodingPosition = fields.filter { $0.name != .contentLength }.firstIndex { $0.name == .contentEncoding }
            head.headerFields[.contentEncoding] = nil
            head.headerFields[.contentLength] = nil
            head.decodedContentEncoding = encoding
        }
        let received = ContinuousClock.now
        deliverHead(.success(StreamedResponse(head: head, body: TransportBodyStream(source: self), headReceived: received, timeToHead: received - sent)))
    }

    func received(_ data: Data) {
        let (reader, overflow) = state.withLock { state -> (CheckedContinuation<Data?, any Error>?, Bool) in
            guard state.stop == nil else { return (nil, false) }
            state.received += data.count
            if state.received > maxBodySize {
                state.stop = .tooLarge
                return (nil, true)
            }
            if let reader = state.reader {
                state.reader = nil
                return (reader, false)
            }
            state.chunks.append(data)
            return (nil, false)
        }
        if overflow { task.cancel() }
        reader?.resume(returning: data)
    }

    func completed(_ error: (any Error)?) {
        typealias Waiters = (reader: CheckedContinuation<Data?, any Error>?, head: (CheckedContinuation<StreamedResponse, any Error>, any Error)?)
        let (waiters, ending) = state.withLock { state -> (Waiters, (any Error)?) in
            let ending = failure(error, stop: state.stop)
            state.end = .some(ending)
            var waiters: Waiters = (nil, nil)
            if state.nextChunk >= state.chunks.count, let reader = state.reader {
                state.reader = nil
                waiters.reader = reader
            }
            if state.head == nil {
                let failure = ending ?? TransportError(.connectionLost, "\(displayURL): the connection closed before an answer arrived")
                state.head = .failure(failure)
                if let waiter = state.headWaiter {
                    state.headWaiter = nil
                    waiters.head = (waiter, failure)
                }
            }
            return (waiters, ending)
        }
        if let (waiter, failure) = waiters.head { waiter.resume(throwing: failure) }
        if let reader = waiters.reader {
            if let ending { reader.resume(throwing: ending) } else { reader.resume(returning: nil) }
        }
    }

    private func deliverHead(_ head: Result<StreamedResponse, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<StreamedResponse, any Error>? in
            guard state.head == nil else { return nil }
            state.head = head
            defer { state.headWaiter = nil }
            return state.headWaiter
        }
        waiter?.resume(with: head)
    }

    /// The error the transfer ends with: this side's reason to stop first, then URLSession's.
    private func failure(_ error: (any Error)?, stop: Stop?) -> (any Error)? {
        switch stop {
        case .cancelled: return CancellationError()
        case .timedOut: return TransportError(.timeout, "\(displayURL): no complete answer within the request's timeout")
        case .tooLarge: return TransportError(.responseTooLarge, "\(displayURL): the answer is larger than \(maxBodySize) bytes")
        case .abandoned: return CancellationError()
        case nil: return error.map { URLSessionErrors.transportError($0, url: displayURL) }
        }
    }
}
