import Foundation
import HTTPTypes
import TestSupport
import Testing
import WellPlateCore

/// gRPC metadata as the store keeps it, with grpcio on both ends: credentials in the request
/// metadata, the response metadata and the trailers are stored redacted as HTTP headers are (the
/// live client still gets them as sent), and what only describes one call's transport
/// (`grpc-timeout`, `te`) is not stored, so two recordings of the same call dump the same.
@Suite("gRPC metadata redacted and without transport fields")
final class ProxyGRPCMetadataTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("grpc.db") }

    // As Tests/Peers/grpc_peer.py's `login` step sends them.
    let clientToken = "c1i3nt-7Qm2Xv9Lp4Rs8Tz6Wk3Nb5Hd"
    let sessionToken = "s3ss10n-9Fh2Kq7Vx4Mp8Lz3Rt6Yw1Nc"
    let sessionCookie = "Zk4Pq9Lm2Vx7Tb3Rs8Wn5Hy1Cd6Jf0Ga"
    let refreshToken = "r3fr3sh-4Bn8Xq2Lm7Vp3Ts9Kw6Rz1Hd"

    init() throws {
        workspace = try CLIWorkspace()
    }

    private func record(_ scenario: String) async throws -> [GRPCPeers.Call] {
        let directory = try TemporaryDirectory(prefix: "grpc-protoset")
        let protoset = try await GRPCPeers.protoset(in: directory).path
        return try await GRPCPeers.withServer { upstream in
            try await withInProcessProxy(["record", "--upstream", upstream.absoluteString, "--port", "0", "--db", store, "--protoset", protoset]) {
                proxy in
                try await GRPCPeers.runClient(scenario, against: proxy.url(""))
            }
        }
    }

    private func storedCalls() async throws -> [Conversation] {
        let opened = try await CassetteStore.open(path: store, access: .readOnly)
        let calls = try await opened.conversations(cassette: "dev").filter { $0.key == "POST /shop.v1.Catalog/GetItem" }
        try await opened.close()
        return calls
    }

    private func field(_ name: String) -> HTTPField.Name { HTTPField.Name(name)! }

    @Test("credentials in request metadata, response metadata and trailers are stored redacted; the client gets them as sent; audit finds none")
    func metadataRedactedAtRecordTime() async throws {
        let recorded = try await record("login")
        #expect(recorded.map(\.code) == ["OK"], "\(recorded.map(\.line.compactJSON))")
        #expect(recorded.first?.line["body"]?["initial"]?["x-auth-token"] == .string(sessionToken))
        #expect(recorded.first?.line["body"]?["trailing"]?["authorization"] == .string("Bearer \(refreshToken)"))
        let call = try #require(try await storedCalls().first)
        let stored = "\(call.requestHeaders) \(call.grpc?.responseHeaders ?? [:]) \(call.grpc?.trailers ?? [:])"
        for secret in [clientToken, sessionToken, sessionCookie, refreshToken] {
            #expect(!stored.contains(secret), "\(secret) reached the store: \(stored)")
        }
        #expect(call.requestHeaders[field("authorization")]?.contains("REDACTED") == true, "\(call.requestHeaders)")
        let headers = try #require(call.grpc?.responseHeaders)
        #expect(headers[field("x-auth-token")] == "REDACTED", "\(headers)")
        #expect(headers[field("set-cookie")] == "session=REDACTED; Path=/; HttpOnly", "\(headers)")
        #expect(headers[field("x-served-by")] == "grpcio-peer")
        #expect(call.grpc?.trailers[field("authorization")]?.contains("REDACTED") == true, "\(call.grpc?.trailers ?? [:])")
        #expect(call.grpc?.trailers[field("x-cost")] == "1")
        let audit = try await workspace.run("audit", "--db", store)
        #expect(audit.status == 0, "\(audit)")
        // Replayed as stored: the redacted values, the call itself unchanged.
        let replayed = try await withInProcessReplayer(store: store) { try await GRPCPeers.runClient("login", against: $0.url("")) }
        #expect(replayed.first?.line["body"]?["item"] == recorded.first?.line["body"]?["item"], "\(replayed.map(\.line.compactJSON))")
        #expect(replayed.first?.line["body"]?["initial"]?["x-auth-token"] == .string("REDACTED"), "\(replayed.map(\.line.compactJSON))")
    }

    @Test("a store that kept credentials in response metadata and trailers: audit reports them, redact replaces them")
    func auditAndRedactResponseMetadata() async throws {
        _ = try await record("get")
        // As a recorder before this version stored them.
        let opened = try await CassetteStore.open(path: store, access: .readWrite)
        var conversations = try await opened.conversations(cassette: nil)
        let index = try #require(conversations.firstIndex { $0.grpc != nil })
        conversations[index].grpc?.responseHeaders?[field("x-auth-token")] = sessionToken
        conversations[index].grpc?.trailers[field("authorization")] = "Bearer \(refreshToken)"
        _ = try await opened.importConversations(conversations, replacing: true)
        try await opened.close()
        let before = try await workspace.run("audit", "--db", store)
        #expect(before.status == 1, "\(before)")
        #expect(before.stdout.contains("response header x-auth-token"), "\(before)")
        #expect(before.stdout.contains("trailer header authorization"), "\(before)")

        let redact = try await workspace.run("redact", "--db", store)
        #expect(redact.status == 0, "\(redact)")
        let call = try #require(try await storedCalls().first)
        #expect(call.grpc?.responseHeaders?[field("x-auth-token")] == "REDACTED", "\(call.grpc?.responseHeaders ?? [:])")
        #expect(call.grpc?.trailers[field("authorization")]?.contains(refreshToken) == false, "\(call.grpc?.trailers ?? [:])")
        let after = try await workspace.run("audit", "--db", store)
        #expect(after.status == 0, "\(after)")
    }

    @Test("grpc-timeout and te are not stored: two recordings of the same call dump the same; replay honours the live grpc-timeout")
    func transportFieldsNotStored() async throws {
        _ = try await record("get,slow,get")
        let calls = try await storedCalls()
        let gets = calls.filter { $0.grpc?.trailers[field("x-cost")] == "2" }
        #expect(gets.count == 2)
        #expect(gets.first?.requestHeaders == gets.last?.requestHeaders, "\(gets.map(\.requestHeaders))")
        for call in calls {
            #expect(call.requestHeaders[field("grpc-timeout")] == nil, "\(call.requestHeaders)")
            #expect(call.requestHeaders[field("te")] == nil, "\(call.requestHeaders)")
            #expect(call.requestHeaders[field("user-agent")] != nil, "\(call.requestHeaders)")
        }
        let dump = try await workspace.run("dump", "--db", store)
        #expect(dump.status == 0, "\(dump)")
        #expect(!dump.stdout.contains("grpc-timeout"), "\(dump.stdout)")
        let replayed = try await withInProcessReplayer(store: store) { try await GRPCPeers.runClient("slow-short,get", against: $0.url("")) }
        #expect(replayed.map(\.code) == ["DEADLINE_EXCEEDED", "OK"], "\(replayed.map(\.line.compactJSON))")
    }
}
