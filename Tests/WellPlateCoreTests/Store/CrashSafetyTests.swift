import Foundation
import HTTPTypes
import Synchronization
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

#if canImport(Glibc)
import Glibc
#endif

/// `cassette record` killed with SIGKILL in the middle of a run leaves a sound file that holds
/// every exchange whose response reached its client: each one is committed before it is answered.
@Suite("Crash safety of the recorder")
final class CrashSafetyTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "crash-safety")
    }

    var store: String { directory.path() }

    /// Requests a worker sends: alternately a GET and a POST with a body, each one distinct.
    static func request(_ number: Int, proxy: URL) -> TransportRequest {
        let url = proxy.appending(pathAndQuery: "/api/echo?n=\(number)")
        if number.isMultiple(of: 2) {
            return TransportRequest(method: .get, url: url)
        }
        return TransportRequest(method: .post, url: url, headerFields: [.contentType: "application/json"], body: Data(#"{"n":\#(number)}"#.utf8))
    }

    /// The key request `number` is stored under.
    static func key(_ number: Int) -> String {
        let request = request(number, proxy: URL(string: "http://127.0.0.1:1")!)
        return RequestKey(method: request.method, url: request.url, headerFields: request.headerFields, body: request.body).rawValue
    }

    /// The requests whose whole response reached the client, shared by the workers.
    final class Deliveries: Sendable {
        private let delivered = Mutex<Set<Int>>([])
        let threshold: Int
        /// Fulfilled once `threshold` responses were delivered.
        let enough = OneShot<Void>()

        init(threshold: Int) {
            self.threshold = threshold
        }

        func add(_ number: Int) {
            let count = delivered.withLock {
                $0.insert(number)
                return $0.count
            }
            if count >= threshold { enough.fulfil(()) }
        }

        var numbers: Set<Int> { delivered.withLock { $0 } }
    }

    @Test func aKilledRecorderLeavesASoundFileWithEveryDeliveredInteraction() async throws {
        let workers = 4
        let deliveriesBeforeKill = 40
        let delivered = Deliveries(threshold: deliveriesBeforeKill)
        var slowAnswered: [Bool] = []

        try await withSampleAPIProcess { upstream, sampleAPI in
            try await withChildProcess("cassette", arguments: ["record", "--upstream", upstream.absoluteString, "--port", "0", "--db", store, "--quiet"]) {
                recorder in
                let proxy = try await recorder.listeningURL()
                let port = try #require(proxy.port)

                // Sent in full before the steady traffic starts; the upstream holds each for a minute
                // (the kill comes long before, however loaded the machine), so they are still in
                // flight when the recorder dies. The upstream is killed right after, so nothing waits.
                var slow: [RawConnection] = []
                for number in 0..<3 {
                    let connection = try await RawConnection.connect(port: port)
                    try await connection.send("GET /api/slow?ms=60000&n=\(number) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    slow.append(connection)
                }

                try await Self.sendUntilKilled(
                    recorder, through: try CurlTransport(), proxy: proxy, workers: workers, delivered: delivered, within: Patience.request)
                for connection in slow {
                    let answer = try await connection.receiveUntilClosed().text
                    slowAnswered.append(answer.hasPrefix("HTTP/1.1 200"))
                }
            }
            // Its one-minute handlers would only delay the test; the recorder that asked is gone.
            sampleAPI.send(signal: SIGKILL)
        }

        #expect(slowAnswered == [false, false, false], "the slow requests were still in flight at the kill")
        let deliveredNumbers = delivered.numbers
        #expect(deliveredNumbers.count >= deliveriesBeforeKill)
        #expect(directory.bytes("cassettes.db-wal")?.isEmpty == false, "the recorder died before checkpointing, so reading must recover from its WAL")
        let reader = try await CassetteStore.open(path: store, access: .readOnly)
        #expect(try await reader.integrityCheck() == [])
        let storedKeys = Set(try await reader.interactions(cassette: nil).map(\.key))
        try await reader.close()
        let lost = deliveredNumbers.sorted().filter { !storedKeys.contains(Self.key($0)) }
        #expect(lost == [], "delivered but not stored")
        #expect(!storedKeys.contains { $0.hasPrefix("GET /api/slow") }, "only complete exchanges are stored")
    }

    /// Group commit under load: 64 clients at once, so interactions share transactions, and the
    /// kill lands while many of them wait for a commit. Every response a client received was
    /// committed before it was sent.
    @Test func aRecorderKilledUnderSixtyFourConnectionsKeepsEveryDeliveredInteraction() async throws {
        let clients = 64
        let deliveriesBeforeKill = 400
        let delivered = Deliveries(threshold: deliveriesBeforeKill)

        try await withSampleAPIProcess { upstream, _ in
            try await withChildProcess(
                "cassette", arguments: ["record", "--upstream", upstream.absoluteString, "--mode", "all", "--port", "0", "--db", store, "--quiet"]
            ) { recorder in
                let proxy = try await recorder.listeningURL()
                var configuration = CurlTransport.Configuration()
                configuration.maxConnections = clients
                try await Self.sendUntilKilled(
                    recorder, through: try CurlTransport(configuration: configuration), proxy: proxy, workers: clients, delivered: delivered,
                    within: Patience.request)
            }
        }

        let deliveredNumbers = delivered.numbers
        #expect(deliveredNumbers.count >= deliveriesBeforeKill)
        let reader = try await CassetteStore.open(path: store, access: .readOnly)
        #expect(try await reader.integrityCheck() == [])
        let stored = try await reader.interactions(cassette: nil)
        try await reader.close()
        let storedKeys = Set(stored.map(\.key))
        let lost = deliveredNumbers.sorted().filter { !storedKeys.contains(Self.key($0)) }
        #expect(lost == [], "delivered but not stored")
        #expect(stored.allSatisfy { $0.sequence == 0 }, "each request is distinct, so each key has one recording")
    }

    /// `workers` clients send distinct requests through the recorder until enough responses were
    /// delivered, then the recorder is killed with SIGKILL; each client stops at its first failure.
    private static func sendUntilKilled(
        _ recorder: ChildProcess, through client: CurlTransport, proxy: URL, workers: Int, delivered: Deliveries, within timeout: Duration
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var number = worker
                    while true {
                        let response: TransportResponse
                        do {
                            response = try await client.send(request(number, proxy: proxy))
                        } catch {
                            return  // the recorder is gone
                        }
                        #expect(response.statusCode == 200)
                        #expect(response.headerFields[HTTPField.Name("X-Cassette")!] == "recorded")
                        delivered.add(number)
                        number += workers
                    }
                }
            }
            try await withTimeout(timeout, "\(delivered.threshold) delivered responses") { try await delivered.enough.wait() }
            recorder.send(signal: SIGKILL)
            #expect(try await recorder.waitForExit(timeout: Patience.process) == .signalled(SIGKILL))
            try await group.waitForAll()
        }
    }
}
