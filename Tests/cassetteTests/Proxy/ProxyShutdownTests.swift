import CassetteProxy
import CassetteTools
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM stops the proxy gracefully: requests it already took are answered and recorded first,
/// and a WebSocket conversation still open is closed and kept.
@Suite("Proxy shutdown")
final class ProxyShutdownTests {
    let workspace: CLIWorkspace
    var store: String { workspace.path("c.db") }

    init() throws {
        workspace = try CLIWorkspace()
    }

    /// The second request on each connection: slow ones, and others that are slow to arrive.
    static let inFlight = [
        RawConnection.get("/api/slow?ms=800&n=1"),
        RawConnection.get("/api/slow?ms=800&n=2"),
        RawConnection.get("/api/slow?ms=600&n=3"),
        RawConnection.post("/api/nutrition/analyze", json: #"{"food":"apple","grams":100}"#),
    ]

    @Test func sigtermWhileRequestsAreInFlightAnswersAndRecordsThemAllThenExits0() async throws {
        try await withSampleAPI { api async throws in
            try await withRecorder(upstream: api, store: store) { recorder async throws in
                var connections: [(connection: RawConnection, early: [UInt8])] = []
                for second in Self.inFlight {
                    let connection = try await recorder.connect()
                    // Pipelined: when the first answer arrives, the proxy has taken the second request.
                    try await connection.send(RawConnection.get("/api/health") + second)
                    let early = try await connection.receive { RawHTTPResponse.parseAll($0).count >= 1 }
                    #expect(RawHTTPResponse.parseAll(early).first?.status == 200)
                    connections.append((connection, early))
                }
                #expect(recorder.process.exitStatus == nil)
                recorder.process.send(signal: SIGTERM)

                for ((connection, early), request) in zip(connections, Self.inFlight) {
                    let responses = RawHTTPResponse.parseAll(early + (try await connection.receiveUntilClosed()))
                    #expect(responses.count == 2, "\(request)")
                    let answer = try #require(responses.dropFirst().first, "no answer to \(request)")
                    #expect(answer.status == 200, "\(request)")
                    #expect(answer.header("X-Cassette") == "recorded")
                    #expect(answer.body.count == Int(answer.header("Content-Length") ?? "") ?? -1)
                }
                #expect(try await recorder.process.waitForExit() == .exited(0))
                #expect(recorder.outputLines.last == "recorded 8, replayed 0, missed 0, unused recordings 0")
            }
        }
        let stored = try await StoreFiles.interactions(at: store)
        #expect(stored.count == 8)
        #expect(Set(stored.map(\.key)).isSuperset(of: ["GET /api/slow?ms=800&n=1", "GET /api/slow?ms=800&n=2", "GET /api/slow?ms=600&n=3"]))
        #expect(stored.filter { $0.key.hasPrefix("GET /api/slow") }.allSatisfy { $0.statusCode == 200 && !$0.responseBody.isEmpty })
    }

    @Test func anIdleKeepAliveConnectionDoesNotHoldUpShutdown() async throws {
        try await workspace.record([Recordings.make(.get, "/api/health")])
        try await withReplayer(store: workspace.storePath) { replayer async throws in
            let connection = try await replayer.connect()
            try await connection.send(RawConnection.get("/api/health"))
            #expect(try await connection.receiveResponses(1).first?.status == 200)
            // A proxy that waited for the idle connection would outlive `stop()`'s 15 s limit.
            #expect(try await replayer.stop() == .exited(0))
            #expect(try await connection.receiveUntilClosed().isEmpty)
        }
    }

    /// The handler is in place before `listening on` is printed: a SIGTERM sent at once stops the
    /// proxy. With a Dispatch signal source behind `SIG_IGN` it was ignored about 1 time in 30
    /// (Dispatch installs its handler later, on its own thread) and the proxy went on serving.
    /// Several processes, to give that window a chance.
    @Test func aSignalSentAsSoonAsTheProxyListensIsNeverLost() async throws {
        try await workspace.record([Recordings.make(.get, "/api/health")])
        for _ in 0..<10 {
            try await withReplayer(store: workspace.storePath) { replayer async throws in
                #expect(try await replayer.stop() == .exited(0))
            }
        }
    }

    /// A WebSocket conversation open when SIGTERM comes: the client (PyPI `wsproto`, the upstream
    /// PyPI `websockets`) is told the proxy is going away.
    @Test func sigtermWithAConversationOpenExitsZeroAndKeepsWhatWasAnsweredMarkedCut() async throws {
        let ready = workspace.path("client-ready")
        let received = try await WebSocketPeers.withUpstream { base in
            try await withRecorder(upstream: base, store: store) { recorder in
                async let client = WebSocketPeers.wsprotoClient("ws://127.0.0.1:\(recorder.port)/chat", script: "hold", argument: ready)
                let deadline = ContinuousClock.now + Patience.process
                while !FileManager.default.fileExists(atPath: ready) && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(try await recorder.stop() == .exited(0))
                return try await client
            }
        }
        // The client was told the proxy is going away.
        #expect(received.last == #"{"closed": 1001, "reason": "cassette is stopping"}"#, "\(received)")
        let conversation = try #require(try await WebSocketPeers.storedConversations(at: store).first)
        #expect(conversation.end == .cut)
        // Every message the client received is in the store, in order.
        let answered = received.dropLast().map { line in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]
            return object?["recv"] ?? line
        }
        let stored = conversation.messages.filter { $0.direction == .server && $0.kind == .text }.map { String(decoding: $0.payload, as: UTF8.self) }
        #expect(stored == answered)
        #expect(conversation.messages.contains { $0.direction == .client && $0.payload == Data("echo me".utf8) })
    }

    @Test func sigtermWithSessionsOpenAnswersWhatWasTakenAndClosesTheStoreCleanly() async throws {
        let store = workspace.path("c.db")
        try await withSampleAPI { api async throws in
            try await withRecorder(upstream: api, store: store) { proxy async throws in
                let slow = try await proxy.openSession("slow", mode: "missing")
                let quick = try await proxy.openSession("quick", mode: "missing")
                #expect(try await quick.get("/api/users/1").cassetteSource == "recorded")

                // Pipelined on one connection: once the first answer is in, the proxy has taken the slow second request.
                let connection = try await RawConnection.connect(port: slow.port)
                try await connection.send(RawConnection.get("/api/health") + RawConnection.get("/api/slow?ms=700"))
                let early = try await connection.receive { RawHTTPResponse.parseAll($0).count >= 1 }
                proxy.process.send(signal: SIGTERM)
                let responses = RawHTTPResponse.parseAll(early + (try await connection.receiveUntilClosed()))
                #expect(responses.map(\.status) == [200, 200])
                #expect(responses.last?.header("X-Cassette") == "recorded")
                #expect(try await proxy.process.waitForExit() == .exited(0))

                let closing = proxy.outputLines.filter { $0.contains("closed as the proxy stopped") }
                #expect(closing.count == 2)
                #expect(closing.contains { $0.hasPrefix("session \(slow.id) ") && $0.hasSuffix("served 2, recorded 2, missed 0, unused recordings 0") })
                #expect(closing.contains { $0.hasPrefix("session \(quick.id) ") && $0.hasSuffix("served 1, recorded 1, missed 0, unused recordings 0") })
                #expect(proxy.outputLines.last == "recorded 0, replayed 0, missed 0, unused recordings 0")
            }
        }
        // Everything answered is in the store, which closed cleanly (no write-ahead log left behind).
        #expect(try await StoreFiles.interactions(at: store, cassette: "slow").map(\.key).sorted() == ["GET /api/health", "GET /api/slow?ms=700"])
        #expect(try await StoreFiles.interactions(at: store, cassette: "quick").map(\.key) == ["GET /api/users/1"])
        #expect(!FileManager.default.fileExists(atPath: store + "-wal"))
    }
}
