import Foundation
import TestSupport
import Testing
import WellPlateNetworking

@testable import CassetteTesting
@testable import WellPlateCore
@testable import WellPlateNetworking

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSession shows a URL protocol the request of an upload task without its body. Sent on, it
/// would reach the upstream empty and be recorded so; the task fails instead, saying what to use.
extension CassetteURLProtocolTests {
    static let user = Data(#"{"name":"Grace Hopper","email":"grace@example.com"}"#.utf8)

    static func request(_ base: URL) -> URLRequest {
        var request = URLRequest(url: base.appending(path: "api/users"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        return request
    }

    @Test func anUploadTaskFailsWithWhatToDoAndNothingIsSentOrRecorded() async throws {
        let settings = CassetteSettings(cassette: "upload", storePath: directory.path(), mode: .once, allowUnused: false)
        let outcome = try await withSampleAPI { base in
            try await Self.run(settings) {
                do {
                    _ = try await Cassette.current.urlSession.upload(for: Self.request(base), from: Self.user)
                    return "answered"
                } catch {
                    return error.localizedDescription
                }
            }
        }
        #expect(outcome.contains("send it with a data task instead"), "\(outcome)")
        #expect(try await storedInteractions(directory.path(), cassette: "upload").isEmpty)
    }

    @Test func theSameBodyAsADataTaskIsRecordedAndReplayed() async throws {
        let settings = CassetteSettings(cassette: "upload-data", storePath: directory.path(), mode: .once, allowUnused: false)
        @Sendable func post(_ base: URL) async throws -> String {
            var request = Self.request(base)
            request.httpBody = Self.user
            let (data, response) = try await Cassette.current.urlSession.data(for: request)
            return "\((response as? HTTPURLResponse)?.statusCode ?? 0) \(String(decoding: data, as: UTF8.self))"
        }
        let recorded = try await withSampleAPI { base in
            try await Self.run(settings) { try await post(base) }
        }
        #expect(recorded.hasPrefix("201 ") && recorded.contains("Grace Hopper"), "\(recorded)")
        var replay = settings
        replay.mode = .replayOnly
        let replayed = try await Self.run(replay) { try await post(URL(string: "http://127.0.0.1:1")!) }
        #expect(replayed == recorded)
    }
}
