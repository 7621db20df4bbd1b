import Foundation
import HTTPTypes
import Synchronization
import WellPlateCore
import WellPlateNetworking

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Answers `URLSession` requests from the running test's cassette and, in a recording mode,
/// forwards them through libcurl and records them: the same matching, redaction, sequences and
/// miss explanations as `Cassette.current.client`. Install it with
/// `URLSessionConfiguration.useCassette()` (or use `Cassette.current.urlSession`), never with
/// `URLProtocol.registerClass`. Data tasks with a body (`httpBody` or `httpBodyStream`), every
/// method, 4xx/5xx answers and redirects work; a miss fails the task with a `URLError` whose
/// description is the miss explanation (and the test with an issue). Upload tasks fail with a
/// `URLError` that says to use a data task: URLSession never shows a protocol their body.
open class CassetteURLProtocol: URLProtocol {
    /// URLSession's own limit.
    static let maximumRedirects = 16
    /// The `URLError.userInfo` key under which a miss travels to the caller.
    public static let missKey = "CassetteMiss"

    private let loading = Mutex<Task<Void, Never>?>(nil)

    override open class func canInit(with request: URLRequest) -> Bool {
        guard let scheme = request.url?.scheme?.lowercased() else { return false }
        return scheme == "http" || scheme == "https"
    }

    override open class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    override open func startLoading() {
        let url = request.url ?? URL(fileURLWithPath: "/")
        guard let binding = Self.binding(for: type(of: self)) else {
            fail(CassetteTestingError.noTrait, url: url)
            return
        }
        // URLSession hands a protocol the request of an upload task without its body; sending it
        // on would record a request the test never made.
        if task is URLSessionUploadTask, request.httpBody == nil, request.httpBodyStream == nil {
            fail(CassetteTestingError.uploadTask, url: url)
            return
        }
        let transportRequest: TransportRequest
        do {
            transportRequest = try Self.transportRequest(from: request)
        } catch {
            fail(error, url: url)
            return
        }
        let handle = Handle(protocol: self)
        let task = Task { await handle.protocol.load(transportRequest, through: binding) }
        loading.withLock { $0 = task }
    }

    override open func stopLoading() {
        loading.withLock { $0?.cancel() }
    }

    private func load(_ first: TransportRequest, through binding: CassetteBinding) async {
        var request = first
        do {
            for _ in 0...Self.maximumRedirects {
                let response = try await binding.send(request)
                guard !Task.isCancelled else { return }
                let urlResponse = Self.urlResponse(response, url: request.url)
                if let next = Self.redirect(after: request, response: response) {
                    #if canImport(FoundationNetworking)
                    // FoundationNetworking traps when a custom protocol reports a redirect, and
                    // only its own HTTP protocol follows them; so this one follows the redirect
                    // itself, as URLSession would, each hop answered and recorded on its own.
                    request = next
                    continue
                    #else
                    client?.urlProtocol(self, wasRedirectedTo: URLRequest(next, from: self.request), redirectResponse: urlResponse)
                    return
                    #endif
                }
                client?.urlProtocol(self, didReceive: urlResponse, cacheStoragePolicy: .notAllowed)
                if !response.body.isEmpty { client?.urlProtocol(self, didLoad: response.body) }
                client?.urlProtocolDidFinishLoading(self)
                return
            }
            throw TransportError(.tooManyRedirects, "more than \(Self.maximumRedirects) redirects, starting at \(first.url.absoluteString)")
        } catch {
            guard !Task.isCancelled else { return }
            fail(error, url: request.url)
        }
    }

    /// Takes the protocol instance into its loading task. `@unchecked Sendable`: URLProtocol is not
    /// Sendable, but the task only reads `request` and `client`, which the initializer set and
    /// nothing changes afterwards, and calls the client, which URLSession allows from any thread;
    /// the one mutable property, `loading`, is behind a mutex.
    private struct Handle: @unchecked Sendable {
        let `protocol`: CassetteURLProtocol
    }

    private func fail(_ error: any Error, url: URL) {
        client?.urlProtocol(self, didFailWithError: Self.urlError(for: error, url: url))
    }
}
