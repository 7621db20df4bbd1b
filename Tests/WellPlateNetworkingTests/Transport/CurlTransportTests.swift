#if canImport(CCurl)
import CCurl
import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// What only libcurl does; what every transport does is in `TransportConformanceTests`.
@Suite("libcurl transport")
struct CurlTransportTests {
    @Test func decodingCanBeSwitchedOff() async throws {
        try await withSampleAPI { base in
            var configuration = CurlTransport.Configuration()
            configuration.decodeContent = false
            let transport = try CurlTransport(configuration: configuration)
            var fields = HTTPFields()
            fields[.acceptEncoding] = "gzip"
            let response = try await transport.send(TransportRequest(method: .get, url: base.appending(pathAndQuery: "/api/users"), headerFields: fields))
            #expect(response.headerFields[.contentEncoding] == "gzip")
            #expect(response.body.starts(with: [0x1F, 0x8B]))
            #expect(response.decodedContentEncoding == nil)
        }
    }

    /// The server holds this request for 30 s, longer than the 300 ms timeout: an answer means the
    /// timeout was ignored, and a `.timeout` error can only come from the client giving up.
    static let heldRequest = "/api/slow?ms=30000"

    @Test func aSlowServerTimesOut() async throws {
        try await withSampleAPIProcess { base, server in
            let client = try TestClients.live(retryPolicy: .never, timeout: .milliseconds(300))
            do {
                _ = try await client.get(url: base.appending(pathAndQuery: Self.heldRequest), responseType: EmptyResponse.self)
                Issue.record("the slow request finished")
            } catch let error as APIError {
                #expect(error.category == .timeout)
                #expect(error.localizedDescription.contains("timed out"))
            }
            // Its held handler would make a graceful stop wait out the 30 s.
            server.send(signal: SIGKILL)
        }
    }

    @Test func aTaskCancelledBeforeSendingNeverStarts() async throws {
        let transport = try CurlTransport()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(TransportRequest(method: .get, url: URL(string: "http://127.0.0.1:9/")!))
        }
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
    }

    @Test func twoHundredConcurrentRequestsThroughOneClient() async throws {
        try await withSampleAPI { base in
            let client = try TestClients.live()
            let ids = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let id = index % 3 + 1
                        return try await client.get(url: base.appending(pathAndQuery: "/api/users/\(id)"), responseType: User.self).id
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(ids.count == 200)
            #expect(ids.filter { $0 == 1 }.count == 67)
        }
    }

    @Test func tlsFailuresAreToldApart() async throws {
        try await withSampleAPI { base in
            // The sample API speaks plain HTTP, so a TLS handshake with it fails.
            let https = URL(string: base.absoluteString.replacingOccurrences(of: "http://", with: "https://"))!.appending(pathAndQuery: "/api/health")
            let client = try TestClients.live(retryPolicy: .never)
            do {
                _ = try await client.get(url: https, responseType: Health.self)
                Issue.record("TLS to a plain HTTP server succeeded")
            } catch let error as APIError {
                #expect(error.category == .tls)
            }
        }
    }

    @Test(arguments: [
        (CURLE_OPERATION_TIMEDOUT, TransportError.Kind.timeout),
        (CURLE_COULDNT_CONNECT, .cannotConnect),
        (CURLE_COULDNT_RESOLVE_HOST, .dnsFailure),
        (CURLE_COULDNT_RESOLVE_PROXY, .dnsFailure),
        (CURLE_SSL_CONNECT_ERROR, .tls),
        (CURLE_PEER_FAILED_VERIFICATION, .tls),
        (CURLE_RECV_ERROR, .connectionLost),
        (CURLE_GOT_NOTHING, .connectionLost),
        (CURLE_URL_MALFORMAT, .invalidURL),
        (CURLE_TOO_MANY_REDIRECTS, .tooManyRedirects),
        (CURLE_OUT_OF_MEMORY, .other),
    ])
    func curlCodesMapToKinds(code: CURLcode, kind: TransportError.Kind) {
        let error = CurlError.transportError(code, detail: "detail", context: "GET http://x")
        #expect(error.kind == kind)
        #expect(error.curlCode == Int(code.rawValue))
        #expect(error.message.hasPrefix("GET http://x: "))
    }

    @Test func secretsInQueryStringsStayOutOfErrors() async throws {
        try await Ports.withRefusingPort { port in
            let client = try TestClients.live(retryPolicy: .never)
            do {
                _ = try await client.get(url: URL(string: "http://127.0.0.1:\(port)/api/health?api_key=hunter2-secret")!, responseType: Health.self)
                Issue.record("a dead port answered")
            } catch {
                #expect(!error.localizedDescription.contains("hunter2-secret"))
                #expect(error.localizedDescription.contains("api_key=REDACTED"))
            }
        }
    }
}
#endif
