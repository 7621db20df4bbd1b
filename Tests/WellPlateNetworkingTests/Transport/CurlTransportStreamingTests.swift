#if canImport(CCurl)
import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// `CurlTransport.stream` against a real upstream that streams (`StreamingUpstream`).
@Suite("libcurl transport, streamed responses")
struct CurlTransportStreamingTests {
    @Test func aBodyBrokenOffMidStreamThrowsAfterWhatArrived() async throws {
        try await withTemporaryDirectory { directory in
            try await StreamingUpstream.with(in: directory) { base in
                let transport = try CurlTransport()
                let streamed = try await transport.stream(TransportRequest(method: .get, url: base.appending(pathAndQuery: "/abort")))
                var received = Data()
                let error = await #expect(throws: TransportError.self) {
                    for try await chunk in streamed.body { received.append(chunk) }
                }
                #expect(error?.kind == .connectionLost)
                #expect(String(decoding: received, as: UTF8.self) == "data: partial\n\n")
            }
        }
    }

    /// A buffer far smaller than the body: the transfer pauses and resumes many times.
    @Test(arguments: ["/large", "/large-chunked"])
    func aLargeBodyThroughASmallBufferArrivesByteExact(path: String) async throws {
        try await withTemporaryDirectory { directory in
            try await StreamingUpstream.with(in: directory) { base in
                var configuration = CurlTransport.Configuration()
                configuration.streamBufferSize = 16 * 1024
                let transport = try CurlTransport(configuration: configuration)
                let size = 3 * 1024 * 1024 + 17
                let request = TransportRequest(method: .get, url: base.appending(pathAndQuery: "\(path)?size=\(size)"))
                let streamed = try await transport.stream(request)
                var body = Data()
                var chunkCount = 0
                for try await chunk in streamed.body {
                    body.append(chunk)
                    chunkCount += 1
                    if chunkCount % 16 == 0 { await Task.yield() }
                }
                #expect(body == binaryPattern(size: size))
                let whole = try await transport.send(request)
                #expect(whole.body == body)
            }
        }
    }

    @Test func collectedGivesTheWholeResponse() async throws {
        try await withTemporaryDirectory { directory in
            try await StreamingUpstream.with(in: directory) { base in
                let transport = try CurlTransport()
                let response = try await transport.stream(TransportRequest(method: .get, url: base.appending(pathAndQuery: "/large?size=1000"))).collected()
                #expect(response.statusCode == 200)
                #expect(response.headerFields[.contentLength] == "1000")
                #expect(response.body == binaryPattern(size: 1000))
            }
        }
    }
}

/// A directory for the upstream's script, removed afterwards.
private func withTemporaryDirectory<R>(_ body: (String) async throws -> R) async throws -> R {
    let directory = try TemporaryDirectory(prefix: "streaming")
    return try await body(directory.url.path)
}
#endif
