import Foundation
import WellPlateCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSession's errors in the categories `CurlTransport` uses, so callers (retries, the proxy's
/// 502/504) treat both transports alike.
enum URLSessionErrors {
    static func transportError(_ error: any Error, url: String) -> TransportError {
        // FoundationNetworking reports an `NSError` in `NSURLErrorDomain` that does not always
        // bridge to `URLError`; the code is the same either way.
        let code: Int
        if let urlError = error as? URLError {
            code = urlError.code.rawValue
        } else if (error as NSError).domain == NSURLErrorDomain {
            code = (error as NSError).code
        } else {
            return TransportError(.other, "\(url): \(error.localizedDescription)")
        }
        var (kind, problem) = classify(code)
        if kind == .other { (kind, problem) = classify(message: error.localizedDescription) }
        return TransportError(kind, "\(url): \(error.localizedDescription) (URLError \(code))", tlsProblem: problem)
    }

    /// FoundationNetworking on Linux reports many failures as `NSURLErrorUnknown` (-1) carrying
    /// libcurl's own text (it runs on libcurl); the text then says which kind it was.
    static func classify(message: String) -> (TransportError.Kind, TLSProblem?) {
        let text = message.lowercased()
        if text.contains("certificate problem") || text.contains("certificate verify") { return (.tls, .untrustedCertificate) }
        if text.contains("ssl") || text.contains("tls") { return (.tls, .handshakeFailed) }
        let lost = ["outstanding read data", "transfer closed", "connection reset", "recv failure", "empty reply", "partial file", "connection was lost"]
        if lost.contains(where: text.contains) { return (.connectionLost, nil) }
        if text.contains("timed out") || text.contains("timeout") { return (.timeout, nil) }
        if text.contains("could not connect") || text.contains("couldn't connect") || text.contains("connection refused") { return (.cannotConnect, nil) }
        if text.contains("resolve host") { return (.dnsFailure, nil) }
        return (.other, nil)
    }

    static func classify(_ code: Int) -> (TransportError.Kind, TLSProblem?) {
        switch code {
        case URLError.Code.timedOut.rawValue:
            return (.timeout, nil)
        case URLError.Code.cannotConnectToHost.rawValue, URLError.Code.notConnectedToInternet.rawValue:
            return (.cannotConnect, nil)
        case URLError.Code.cannotFindHost.rawValue, URLError.Code.dnsLookupFailed.rawValue:
            return (.dnsFailure, nil)
        case URLError.Code.serverCertificateUntrusted.rawValue, URLError.Code.serverCertificateHasUnknownRoot.rawValue,
            URLError.Code.serverCertificateHasBadDate.rawValue, URLError.Code.serverCertificateNotYetValid.rawValue:
            return (.tls, .untrustedCertificate)
        case URLError.Code.clientCertificateRejected.rawValue, URLError.Code.clientCertificateRequired.rawValue:
            return (.tls, .clientCertificateRejected)
        case URLError.Code.secureConnectionFailed.rawValue:
            return (.tls, .handshakeFailed)
        case URLError.Code.networkConnectionLost.rawValue, URLError.Code.badServerResponse.rawValue, URLError.Code.cannotParseResponse.rawValue,
            URLError.Code.zeroByteResource.rawValue, URLError.Code.cannotDecodeContentData.rawValue, URLError.Code.cannotDecodeRawData.rawValue:
            return (.connectionLost, nil)
        case URLError.Code.badURL.rawValue, URLError.Code.unsupportedURL.rawValue:
            return (.invalidURL, nil)
        case URLError.Code.httpTooManyRedirects.rawValue, URLError.Code.redirectToNonExistentLocation.rawValue:
            return (.tooManyRedirects, nil)
        case URLError.Code.dataLengthExceedsMaximum.rawValue:
            return (.responseTooLarge, nil)
        default:
            return (.other, nil)
        }
    }
}
