import CassetteProxy
import CassetteTools
import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// Record against a real upstream (Python's http.server), replay offline: multipart uploads with a
/// new boundary, ETag/304 and content negotiation.
@Suite("Proxy matching for real clients")
final class ProxyRealClientMatchingTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("c.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    @Test func aMultipartUploadReplaysWithADifferentBoundary() async throws {
        try await PythonUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessRecorder(upstream: base, store: store) { recorder async throws in
                let upload = MultipartUpload.make(boundary: "recorded-boundary-1")
                let response = try await recorder.send(.post, "/api/upload", headers: [.contentType: upload.contentType], body: upload.body)
                #expect(response.cassetteSource == "recorded")
                #expect(try response.jsonObject()["bytes"] as? Int == upload.body.count)
            }
        }
        try await withInProcessReplayer(store: store) { replayer async throws in
            let upload = MultipartUpload.make(boundary: "another-random-boundary")
            let response = try await replayer.send(.post, "/api/upload", headers: [.contentType: upload.contentType], body: upload.body)
            #expect(response.cassetteSource == "hit")
            let changed = MultipartUpload.make(boundary: "b", caption: "Dinner")
            let miss = try await replayer.send(.post, "/api/upload", headers: [.contentType: changed.contentType], body: changed.body)
            #expect(miss.statusCode == 404)
            #expect(miss.bodyText.contains("part 1: name=\\\"caption\\\""), "\(miss.bodyText)")
        }
    }

    @Test func aRecorded304AnswersOnlyTheConditionalRequest() async throws {
        let conditional: HTTPFields = [.ifNoneMatch: "\"v1\""]
        try await PythonUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessRecorder(upstream: base, store: store) { recorder async throws in
                #expect(try await recorder.get("/api/etag", headers: conditional).statusCode == 304)
            }
        }
        try await withInProcessReplayer(store: store) { replayer async throws in
            // A client without a cached copy must never get the empty 304.
            let fresh = try await replayer.get("/api/etag")
            #expect(fresh.statusCode == 404)
            #expect(fresh.cassetteSource == "miss")
            #expect(fresh.bodyText.contains("header if-none-match missing"), "\(fresh.bodyText)")
            #expect(try await replayer.get("/api/etag", headers: conditional).statusCode == 304)
        }
        try await PythonUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessRecorder(upstream: base, store: store) { recorder async throws in
                #expect(try await recorder.get("/api/etag").statusCode == 200)
            }
        }
        try await withInProcessReplayer(store: store) { replayer async throws in
            let fresh = try await replayer.get("/api/etag")
            #expect(fresh.statusCode == 200)
            #expect(try fresh.jsonObject()["version"] as? Int == 1)
            #expect(try await replayer.get("/api/etag", headers: conditional).statusCode == 304)
        }
    }

    @Test func matchHeadersRecordsOneAnswerPerLanguage() async throws {
        try workspace.write(#"{"matchHeaders": ["Accept-Language"]}"#, to: "cassette.json")
        try await PythonUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessProxy(["record", "--upstream", base.absoluteString, "--port", "0", "--db", store] + workspace.configArguments) {
                recorder async throws in
                #expect(try await recorder.get("/api/negotiate", headers: [.acceptLanguage: "fr"]).jsonObject()["greeting"] as? String == "bonjour")
                #expect(try await recorder.get("/api/negotiate", headers: [.acceptLanguage: "en"]).jsonObject()["greeting"] as? String == "hello")
            }
        }
        try await withInProcessProxy(["replay", "--port", "0", "--db", store] + workspace.configArguments) { replayer async throws in
            #expect(try await replayer.get("/api/negotiate", headers: [.acceptLanguage: "fr"]).jsonObject()["greeting"] as? String == "bonjour")
            #expect(try await replayer.get("/api/negotiate", headers: [.acceptLanguage: "en"]).jsonObject()["greeting"] as? String == "hello")
            let miss = try await replayer.get("/api/negotiate", headers: [.acceptLanguage: "de"])
            #expect(miss.bodyText.contains("header accept-language: de vs "), "\(miss.bodyText)")
        }
    }

    @Test func aVaryHeaderInTheRecordingIsShownInMissExplanations() async throws {
        try await PythonUpstream.with(in: workspace.directory.path) { base in
            try await withInProcessRecorder(upstream: base, store: store) { recorder async throws in
                _ = try await recorder.get("/api/negotiate?page=1", headers: [.acceptLanguage: "fr"])
            }
        }
        try await withInProcessReplayer(store: store) { replayer async throws in
            let miss = try await replayer.get("/api/negotiate?page=2")
            #expect(miss.bodyText.contains("the recorded response has Vary: Accept-Language; add those headers to matchHeaders"), "\(miss.bodyText)")
            // The same Accept-Language as recorded: the query is the whole difference, and the
            // explanation names it without advice about headers.
            let same = try await replayer.get("/api/negotiate?page=2", headers: [.acceptLanguage: "fr"])
            #expect(same.bodyText.contains("query parameter page: 2 vs 1"), "\(same.bodyText)")
            #expect(!same.bodyText.contains("Vary"), "\(same.bodyText)")
        }
    }
}
