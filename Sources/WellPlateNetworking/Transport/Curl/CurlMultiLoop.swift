#if canImport(CCurl)
import CCurl
import Foundation
import Synchronization
import WellPlateCore

/// Drives one libcurl multi handle on a dedicated thread, so no blocking libcurl call ever runs
/// on Swift's cooperative pool. Callers hand transfers over through a lock-protected queue and
/// wake the thread with `curl_multi_wakeup`; the thread resumes each caller's continuation.
///
/// `@unchecked Sendable` is safe because the multi handle, the easy-handle pool and `active` are
/// touched only by the loop thread (they are private and used only from `run` and the functions
/// it calls), while every member other threads use is either immutable or inside `state`, a
/// `Mutex`. `curl_multi_wakeup` is documented as callable from any thread.
final class CurlMultiLoop: @unchecked Sendable {
    private struct State {
        var submitted: [CurlTransfer] = []
        var cancelled: [CurlTransfer] = []
        var resumed: [CurlTransfer] = []
        var shuttingDown = false
    }

    private let multi: UnsafeMutableRawPointer
    private let state = Mutex(State())
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    private var idleHandles: [UnsafeMutableRawPointer] = []
    private let maxIdleHandles = 64

    init(maxConnections: Int) throws(TransportError) {
        try CurlGlobal.ensureInitialized()
        guard let multi = curl_multi_init() else {
            throw TransportError(.other, "libcurl could not create a multi handle (out of memory?)")
        }
        self.multi = multi
        try CurlError.check(ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, maxConnections), "set the connection cache size")
        let thread = Thread { [self] in
            // Named from inside: on Linux, Foundation names only the current thread, and a name set
            // before `start` leaves the one inherited from the creating thread (shown by `top` and `perf`).
            Thread.current.name = "curl-multi"
            run()
        }
        thread.start()
    }

    /// Queues a transfer; returns false when it was cancelled before it got here.
    func submit(_ transfer: CurlTransfer) throws(TransportError) -> Bool {
        let accepted: Bool = try state.withLock { (state) throws(TransportError) -> Bool in
            if state.shuttingDown {
                throw TransportError(.shutdown, "\(transfer.request.method.rawValue) \(transfer.displayURL): the transport was shut down")
            }
            if transfer.phase == .cancelled { return false }
            transfer.phase = .submitted
            state.submitted.append(transfer)
            return true
        }
        if accepted { curl_multi_wakeup(multi) }
        return accepted
    }

    /// Aborts a transfer; safe to call at any time, including before `submit` or after completion.
    package func cancel(_ transfer: CurlTransfer) {
        let wake = state.withLock { state -> Bool in
            switch transfer.phase {
            case .created:
                transfer.phase = .cancelled
                return false
            case .submitted:
                state.cancelled.append(transfer)
                return true
            case .cancelled:
                return false
            }
        }
        if wake { curl_multi_wakeup(multi) }
    }

    /// Resumes a streamed transfer its write callback paused; a no-op once it is over.
    func resume(_ transfer: CurlTransfer) {
        state.withLock { $0.resumed.append(transfer) }
        curl_multi_wakeup(multi)
    }

    /// Fails everything in flight and stops the thread once it notices.
    func shutdown() {
        state.withLock { $0.shuttingDown = true }
        curl_multi_wakeup(multi)
    }

    // MARK: Loop thread

    private func run() {
        while true {
            let (submitted, cancelled, resumed, shuttingDown) = state.withLock { state in
                defer {
                    state.submitted.removeAll(keepingCapacity: true)
                    state.cancelled.removeAll(keepingCapacity: true)
                    state.resumed.removeAll(keepingCapacity: true)
                }
                return (state.submitted, state.cancelled, state.resumed, state.shuttingDown)
            }
            for transfer in submitted { start(transfer) }
            for transfer in cancelled { abort(transfer, with: CancellationError()) }
            for transfer in resumed { unpause(transfer) }
            if shuttingDown {
                for transfer in Array(active.values) {
                    abort(transfer, with: TransportError(.shutdown, "\(transfer.request.method.rawValue) \(transfer.displayURL): the transport was shut down"))
                }
                break
            }

            var running: Int32 = 0
            let performCode = curl_multi_perform(multi, &running)
            if performCode != CURLM_OK {
                failAll(code: performCode, while: "drive transfers")
            }
            collectFinished()
            wakeStreamReaders()

            let pollCode = curl_multi_poll(multi, nil, 0, 1000, nil)
            if pollCode != CURLM_OK {
                failAll(code: pollCode, while: "wait for network events")
            }
        }
        for handle in idleHandles { curl_easy_cleanup(handle) }
        idleHandles.removeAll()
        curl_multi_cleanup(multi)
    }

    private func start(_ transfer: CurlTransfer) {
        guard let easy = idleHandles.popLast() ?? curl_easy_init() else {
            finish(transfer, .failure(TransportError(.other, "libcurl could not create an easy handle (out of memory?)")))
            return
        }
        do {
            try transfer.configure(easy)
            try CurlError.check(curl_multi_add_handle(multi, easy), "add a transfer")
            active[easy] = transfer
        } catch {
            recycle(easy)
            finish(transfer, .failure(error))
        }
    }

    private func abort(_ transfer: CurlTransfer, with error: Error) {
        guard let easy = transfer.easy, active.removeValue(forKey: easy) != nil else { return }
        curl_multi_remove_handle(multi, easy)
        recycle(easy)
        finish(transfer, .failure(error))
    }

    private func unpause(_ transfer: CurlTransfer) {
        guard let easy = transfer.easy, active[easy] === transfer else { return }
        do {
            try CurlError.check(ccurl_easy_resume(easy), "resume a paused transfer")
        } catch {
            abort(transfer, with: error)
        }
    }

    private func collectFinished() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = ccurl_msg_result(message)
            guard let transfer = active.removeValue(forKey: easy) else { continue }
            let outcome = transfer.outcome(for: code)
            curl_multi_remove_handle(multi, easy)
            recycle(easy)
            finish(transfer, outcome)
        }
    }

    /// One wake per pass for what each streamed transfer received in it (see `CurlStreamSink`).
    private func wakeStreamReaders() {
        for transfer in active.values where transfer.sinkHasNews {
            transfer.sinkHasNews = false
            transfer.sink?.wake()
        }
    }

    private func failAll(code: CURLMcode, while what: String) {
        let error: TransportError
        do {
            try CurlError.check(code, what)
            return
        } catch let thrown {
            error = thrown
        }
        for transfer in Array(active.values) { abort(transfer, with: error) }
    }

    private func recycle(_ easy: UnsafeMutableRawPointer) {
        if idleHandles.count < maxIdleHandles {
            // Reset keeps the handle's DNS and TLS session caches but clears every option.
            curl_easy_reset(easy)
            idleHandles.append(easy)
        } else {
            curl_easy_cleanup(easy)
        }
    }

    private func finish(_ transfer: CurlTransfer, _ outcome: Result<TransportResponse, Error>) {
        transfer.easy = nil
        let continuation = transfer.continuation
        transfer.continuation = nil
        continuation?.resume(with: outcome)
        transfer.sink?.finish(outcome.map { TransportResponseHead(statusCode: $0.statusCode, headerFields: $0.headerFields) })
    }
}
#endif
