import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Between URLSession's types and the library's transport types.
extension CassetteURLProtocol {
    static func transportRequest(from request: URLRequest) throws -> TransportRequest {
        guard let url = request.url else { throw TransportError(.invalidURL, "the request has no URL") }
        let methodName = request.httpMethod ?? "GET"
        guard let method = HTTPMethod(token: methodName) else {
            throw TransportError(.invalidRequest, "\(methodName) is not a method cassettes can record; use GET, POST, PUT, PATCH, DELETE, HEAD or OPTIONS")
        }
        var fields = HTTPFields()
        for (name, value) in (request.allHTTPHeaderFields ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let fieldName = HTTPField.Name(name) else {
                throw TransportError(.invalidRequest, "\"\(name)\" is not a valid header name (use letters, digits and -)")
            }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        let timeout = request.timeoutInterval > 0 ? Seconds(clamping: request.timeoutInterval).duration : nil
        return TransportRequest(method: method, url: url, headerFields: fields, body: try body(of: request), timeout: timeout)
    }

    /// The body, from `httpBody` or read to the end from `httpBodyStream`.
    static func body(of request: URLRequest) throws -> Data? {
        if let body = request.httpBody { return body }
        guard let stream = request.httpBodyStream else { return nil }
        stream.open()
        defer { stream.close() }
        var body = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count < 0 {
                throw TransportError(.invalidRequest, "the request's body stream failed: \(stream.streamError.map { "\($0)" } ?? "unknown error")")
            }
            if count == 0 { return body }
            body.append(buffer, count: count)
        }
    }

    static func urlResponse(_ response: TransportResponse, url: URL) -> HTTPURLResponse {
        var headers: [String: String] = [:]
        for field in response.headerFields {
            headers[field.name.rawName] = headers[field.name.rawName].map { "\($0), \(field.value)" } ?? field.value
        }
        // Only fails for a status outside 100...999, which no HTTP response has.
        return HTTPURLResponse(url: url, statusCode: response.statusCode, httpVersion: "HTTP/1.1", headerFields: headers)
            ?? HTTPURLResponse(url: url, statusCode: 500, httpVersion: "HTTP/1.1", headerFields: headers)!
    }

    /// The request URLSession would send after `response`, or `nil` when it is not a redirect.
    /// 303, and 301/302 after a POST, continue as a GET without a body; 307/308 repeat the request.
    static func redirect(after request: TransportRequest, response: TransportResponse) -> TransportRequest? {
        guard [301, 302, 303, 307, 308].contains(response.statusCode),
            let location = response.headerFields[.location],
            let target = URL(string: location, relativeTo: request.url)?.absoluteURL
        else { return nil }
        var next = request
        next.url = target
        let becomesGET = response.statusCode == 303 ? request.method != .head : (response.statusCode <= 302 && request.method == .post)
        if becomesGET {
            next.method = .get
            next.body = nil
            next.headerFields[.contentType] = nil
            next.headerFields[.contentLength] = nil
        }
        return next
    }

    /// A `URLError` as URLSession reports failures; a miss keeps its explanation as the
    /// description and travels under `missKey`.
    static func urlError(for error: any Error, url: URL) -> URLError {
        var info: [String: Any] = [NSURLErrorFailingURLErrorKey: url, NSLocalizedDescriptionKey: "\(error)"]
        let code: URLError.Code
        switch error {
        case let miss as CassetteMiss:
            info[missKey] = miss
            info[NSLocalizedDescriptionKey] = MissExplanation(miss).text
            code = .resourceUnavailable
        case let transport as TransportError:
            switch transport.kind.code {
            case .timeout: code = .timedOut
            case .cannotConnect: code = .cannotConnectToHost
            case .dnsFailure: code = .cannotFindHost
            case .tls: code = .secureConnectionFailed
            case .connectionLost: code = .networkConnectionLost
            case .invalidURL: code = .badURL
            case .tooManyRedirects: code = .httpTooManyRedirects
            case .responseTooLarge: code = .dataLengthExceedsMaximum
            case .invalidRequest, .shutdown, .other: code = .unknown
            }
        case is CancellationError:
            code = .cancelled
        default:
            code = .unknown
        }
        return URLError(code, userInfo: info)
    }

    /// The miss behind a failed URLSession task, if that is why it failed.
    public static func miss(in error: any Error) -> CassetteMiss? {
        (error as? URLError)?.userInfo[missKey] as? CassetteMiss
    }
}

#if !canImport(FoundationNetworking)
extension URLRequest {
    /// `original` sent to a redirect target: same settings, the target's URL, method and body.
    init(_ request: TransportRequest, from original: URLRequest) {
        self = original
        url = request.url
        httpMethod = request.method.rawValue
        httpBody = request.body
        if request.body == nil {
            httpBodyStream = nil
            setValue(nil, forHTTPHeaderField: "Content-Type")
            setValue(nil, forHTTPHeaderField: "Content-Length")
        }
    }
}
#endif
