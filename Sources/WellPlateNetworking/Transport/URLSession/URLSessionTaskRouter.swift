import Foundation
import Synchronization
import WellPlateCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session's delegate: hands each task's events to its `URLSessionTransfer`, and answers
/// redirects and server-trust challenges as the request and the configuration ask.
///
/// `@unchecked Sendable` because `NSObject` is not `Sendable`; it is safe: the stored properties
/// are `let`, the transfers are behind a `Mutex`, and `URLSessionTrust` is a value of `Data`.
final class URLSessionTaskRouter: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let transfers = Mutex<[Int: URLSessionTransfer]>([:])
    private let trust: URLSessionTrust?

    init(trust: URLSessionTrust?) {
        self.trust = trust
    }

    func register(_ transfer: URLSessionTransfer, for task: URLSessionTask) {
        transfers.withLock { $0[task.taskIdentifier] = transfer }
    }

    private func transfer(_ task: URLSessionTask) -> URLSessionTransfer? {
        transfers.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        transfer(dataTask)?.received(response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        transfer(dataTask)?.received(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let finished = transfers.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        finished?.completed(error)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // Declined, the redirect itself is the answer, as with libcurl.
        completionHandler(transfer(task)?.followRedirects == true ? request : nil)
    }

    #if canImport(Security)
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard let trust else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        let (disposition, credential) = trust.evaluate(challenge)
        completionHandler(disposition, credential)
    }
    #endif
}
