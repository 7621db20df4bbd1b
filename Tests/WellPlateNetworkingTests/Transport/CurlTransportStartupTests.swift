#if canImport(CCurl)
import Foundation
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// `CurlTransport.shared` is created where no caller can catch an error: a libcurl that cannot
/// start must surface as a thrown error on use, not stop the process.
@Suite("libcurl transport start-up")
struct CurlTransportStartupTests {
    @Test func aTransportThatCannotStartThrowsOnEverySend() async throws {
        var configuration = CurlTransport.Configuration()
        configuration.maxConnections = -1
        #expect(throws: TransportError.self) { try CurlTransport(configuration: configuration) }

        let transport = CurlTransport(rememberingStartupFailure: configuration)
        for _ in 0..<2 {
            do {
                _ = try await transport.send(TransportRequest(method: .get, url: URL(string: "http://127.0.0.1:9/")!))
                Issue.record("a transport without libcurl sent a request")
            } catch let error as TransportError {
                #expect(error.message == "libcurl could not start, so no request can be sent: maxConnections is -1; it must be 0 or more")
                #expect(error.kind == .invalidRequest)
            }
        }
    }

    @Test func theSharedTransportWorks() async throws {
        try await withSampleAPI { base in
            let response = try await CurlTransport.shared.send(TransportRequest(method: .get, url: base.appending(pathAndQuery: "/api/health")))
            #expect(response.statusCode == 200)
        }
    }
}
#endif
