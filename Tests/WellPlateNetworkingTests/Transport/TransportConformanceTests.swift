import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// The same behaviour from every transport this build has (libcurl and URLSession here; URLSession
/// alone with `WELLPLATE_NO_CURL=1`), against real servers on loopback: the sample API, a server
/// that never answers, a streaming upstream and an HTTPS server with certificates made now.
@Suite("Transport conformance")
struct TransportConformanceTests {
    static let choices = TransportChoice.allCases.filter(\.isAvailable)

    func transport(_ choice: TransportChoice, tls: TLSConfiguration = TLSConfiguration(), maxBody: Int? = nil) throws -> any StreamingHTTPTransport {
        switch choice {
        case .urlsession:
            var configuration = URLSessionTransport.Configuration()
            configuration.tls = tls
            if let maxBody { configuration.maxResponseBodySize = maxBody }
            return try URLSessionTransport(configuration: configuration)
        case .curl:
            #if canImport(CCurl)
            var configuration = CurlTransport.Configuration()
            configuration.tls = tls
            if let maxBody { configuration.maxResponseBodySize = maxBody }
            return try CurlTransport(configuration: configuration)
            #else
            throw TransportError(.other, "no libcurl in this build")
            #endif
        }
    }

    struct Echo: Decodable {
        let method: String
        let path: String
        let headers: [[String]]
        let body: String?

        func header(_ name: String) -> String? {
            headers.first { $0.first?.lowercased() == name.lowercased() }?.last
        }
    }

    @Test(arguments: choices)
    func everyMethodAndBodyArrivesAsSent(_ choice: TransportChoice) async throws {
        let transport = try transport(choice)
        try await withSampleAPI { base in
            let url = base.appending(pathAndQuery: "/api/echo")
            for method in [HTTPMethod.get, .delete] {
                let response = try await transport.send(TransportRequest(method: method, url: url))
                #expect(response.statusCode == 200)
                #expect(try JSONDecoder().decode(Echo.self, from: response.body).method == method.rawValue)
            }
            for method in [HTTPMethod.post, .put, .patch] {
                let body = #"{"name":"Soup","kcal":120,"note":"é ✓"}"#
                let response = try await transport.send(
                    TransportRequest(method: method, url: url, headerFields: [.contentType: "application/json"], body: Data(body.utf8)))
                let echo = try JSONDecoder().decode(Echo.self, from: response.body)
                #expect(echo.method == method.rawValue && echo.body == body)
                #expect(echo.header("content-type") == "application/json")
            }
            let options = try await transport.send(TransportRequest(method: .options, url: url))
            #expect((200..<300).contains(options.statusCode))
            let head = try await transport.send(TransportRequest(method: .head, url: base.appending(pathAndQuery: "/api/health")))
            #expect(head.statusCode == 200 && head.body.isEmpty)
        }
    }

    @Test(arguments: choices)
    func headersGoOutAndComeBack(_ choice: TransportChoice) async throws {
        let transport = try transport(choice)
        try await withSampleAPI { base in
            let fields: HTTPFields = [HTTPField.Name("X-Request-Tag")!: "conformance-1", .accept: "application/json"]
            let response = try await transport.send(TransportRequest(method: .get, url: base.appending(pathAndQuery: "/api/echo"), headerFields: fields))
            let echo = try JSONDecoder().decode(Echo.self, from: response.body)
            #expect(echo.header("x-request-tag") == "conformance-1")
            #expect(response.headerFields[.contentType]?.hasPrefix("application/json") == true)
        }
    }

    @Test(arguments: choices)
    func statusesAreAnswersAndClientsMapThemAlike(_ choice: TransportChoice) async throws {
        let transport = try transport(choice)
        try await withSampleAPI { base in
            let missing = try await transport.send(TransportRequest(method: .get, url: base.appending(pathAndQuery: "/api/no-such-thing")))
            #expect(missing.statusCode == 404)
            var configuration = APIClient.Configuration()
            configuration.retryPolicy = .never
            let client = APIClient(transport: transport, configuration: configuration)
            let error = await #expect(throws: APIError.self) {
                _ = try await client.get(url: base.appending(pathAndQuery: "/api/no-such-thing"), responseType: EmptyResponse.self)
            }
            #expect(error?.category == .notFound)
        }
    }

    @Test(arguments: choices)
    func failuresWithoutAnAnswerHaveTheSameKinds(_ choice: TransportChoice) async throws {
        let transport = try transport(choice)
        try await Ports.withRefusingPort { closed in
            let refused = await #expect(throws: TransportError.self) {
                try await transport.send(TransportRequest(method: .get, url: URL(string: "http://127.0.0.1:\(closed)/")!, timeout: .seconds(5)))
            }
            #expect(refused?.kind == .cannotConnect)
        }
        let notHTTP = await #expect(throws: TransportError.self) {
            try await transport.send(TransportRequest(method: .get, url: URL(string: "ftp://127.0.0.1/file")!))
        }
        #expect(notHTTP?.kind == .invalidURL)
    }

    @Test(arguments: choices)
    func gzipIsDecodedAndTheEncodingRemembered(_ choice: TransportChoice) async throws {
        let transport = try transport(choice)
        try await withSampleAPI { base in
            let response = try await transport.send(
                TransportRequest(method: .get, url: base.appending(pathAndQuery: "/api/users"), headerFields: [.acceptEncoding: "gzip"]))
            #expect(response.statusCode == 200)
            #expect(response.decodedContentEncoding == "gzip")
            #expect(response.headerFields[.contentEncoding] == nil)
            #expect(try JSONSerialization.jsonObject(with: response.body) is [Any])
            if let length = response.headerFields[.contentLength] { #expect(Int(length) == response.body.count) }
        }
    }

    @Test(arguments: choices)
    func binaryBodiesArriveByteExactAndOversizedOnesFail(_ choice: TransportChoice) async throws {
        try await withSampleAPI { base in
            let response = try await transport(choice).send(TransportRequest(method: .get, url: base.appending(pathAndQuery: "/api/binary?size=70000")))
            #expect(response.body.count == 70000)
            #expect(response.body.enumerated().allSatisfy { $0.element == UInt8($0.offset % 256) })
            let error = await #expect(throws: TransportError.self) {
                try await transport(choice, maxBody: 1000).send(TransportRequest(method: .get, url: base.appending(pathAndQuery: "/api/binary?size=5000")))
            }
            #expect(error?.kind == .responseTooLarge)
        }
    }

    @Test(arguments: choices)
    func redirectsAreReturnedUnlessFollowingIsAsked(_ choice: TransportChoice) async throws {
        let transport = try transport(choice)
        try await withSampleAPI { base in
            let url = base.appending(pathAndQuery: "/api/redirect")
            let raw = try await transport.send(TransportRequest(method: .get, url: url))
            #expect(raw.statusCode == 302)
            #expect(raw.headerFields[.location] == "/api/health")
            let followed = try await transport.send(TransportRequest(method: .get, url: url, followRedirects: true))
            #expect(followed.statusCode == 200)
        }
    }

    @Test(arguments: choices)
    func aServerThatNeverAnswersTimesOut(_ choice: TransportChoice) async throws {
        let transport = try transport(choice)
        try await withHoldingServer { holder in
            let error = await #expect(throws: TransportError.self) {
                try await transport.send(TransportRequest(method: .get, url: holder.url.appending(pathAndQuery: "/held"), timeout: .milliseconds(500)))
            }
            // The server never answers: a `.timeout` can only be the client giving up.
            #expect(error?.kind == .timeout)
        }
    }

    @Test(arguments: choices)
    func cancellingTheTaskAbortsTheRequest(_ choice: TransportChoice) async throws {
        let transport = try transport(choice)
        try await withHoldingServer { holder in
            let task = Task {
                try await transport.send(TransportRequest(method: .get, url: holder.url.appending(pathAndQuery: "/held"), timeout: .seconds(600)))
            }
            await holder.requestArrived()
            task.cancel()
            let result = await task.result
            #expect(throws: CancellationError.self) { try result.get() }
        }
        // Still usable afterwards.
        try await withSampleAPI { base in
            let health = try await transport.send(TransportRequest(method: .get, url: base.appending(pathAndQuery: "/api/health")))
            #expect(health.statusCode == 200)
        }
    }

    @Test(arguments: choices)
    func streamedBodiesArriveAsSentAndABreakIsAnError(_ choice: TransportChoice) async throws {
        let transport = try transport(choice)
        let directory = try TemporaryDirectory(prefix: "stream")
        do {
            try await StreamingUpstream.with(in: directory.url.path) { base in
                let streamed = try await transport.stream(TransportRequest(method: .get, url: base.appending(pathAndQuery: "/sse")))
                #expect(streamed.head.statusCode == 200)
                var chunks = streamed.body.makeAsyncIterator()
                let first = try #require(try await chunks.next())
                // The upstream holds every later event until /release: this one came on its own.
                #expect(String(decoding: first, as: UTF8.self) == "data: one\n\n")
                _ = try await transport.send(TransportRequest(method: .get, url: base.appending(pathAndQuery: "/release")))
                var rest = Data()
                while let chunk = try await chunks.next() { rest.append(chunk) }
                #expect(String(decoding: rest, as: UTF8.self) == "data: two\n\ndata: three\n\n")

                let broken = try await transport.stream(TransportRequest(method: .get, url: base.appending(pathAndQuery: "/abort")))
                let error = await #expect(throws: TransportError.self) {
                    for try await _ in broken.body {}
                }
                #expect(error?.kind == .connectionLost, "\(String(describing: error))")
            }
        }
    }

    @Test(arguments: choices)
    func tlsToACAMadeNowIsTrustedOnlyWhenConfiguredWhereSupported(_ choice: TransportChoice) async throws {
        let directory = try TemporaryDirectory(prefix: "tls")
        let certificates = try await TestCertificates.make(in: directory.url.path)
        let tls = PythonUpstream.TLS(certificate: certificates.serverCertificate, key: certificates.serverKey, requiredClientCA: nil)
        try await PythonUpstream.with(tls: tls, in: directory.url.path) { base in
            let url = base.appending(pathAndQuery: "/api/hello")
            let untrusted = await #expect(throws: TransportError.self) {
                try await transport(choice).send(TransportRequest(method: .get, url: url))
            }
            #expect(untrusted?.kind == .tls, "\(String(describing: untrusted))")
            let withCA = TLSConfiguration(additionalCACertificatesPath: certificates.caCertificate)
            if choice == .urlsession && !Self.urlSessionEvaluatesTrust {
                // FoundationNetworking has no trust evaluation: refused at once, never ignored.
                let refused = #expect(throws: TransportError.self) { _ = try transport(choice, tls: withCA) }
                #expect(refused?.kind == .tls)
                #expect(refused?.message.contains("CurlTransport") == true)
            } else {
                let response = try await transport(choice, tls: withCA).send(TransportRequest(method: .get, url: url))
                #expect(response.statusCode == 200)
            }
        }
    }

    static var urlSessionEvaluatesTrust: Bool {
        #if canImport(Security)
        true
        #else
        false
        #endif
    }
}
