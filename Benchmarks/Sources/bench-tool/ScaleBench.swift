import CassetteTools
import Foundation
import WellPlateCore
import WellPlateNetworking

/// Open time, memory and lookup time of one store, in a fresh process so memory is its own.
enum ScaleBench {
    static func run(path: String) async throws {
        let paths = try String(contentsOfFile: path + ".paths", encoding: .utf8).split(separator: "\n").map(String.init)
        let before = Measure.residentBytes()
        let start = ContinuousClock.now
        let store = try await CassetteStore.open(path: path, access: .readOnly)
        let session = try await CassetteSession.open(store: store, options: .init(cassette: StoreGenerator.cassette))
        let opened = ContinuousClock.now - start
        let openSeconds = Double(opened.components.seconds) + Double(opened.components.attoseconds) / 1e18
        let after = Measure.residentBytes()
        let bodyBytes = try await session.store.summaries(cassette: nil).reduce(0) { $0 + $1.bodySize }

        // Full replay path: build the request, redact, normalize, look up.
        var generator = SystemRandomNumberGenerator()
        let lookups = 200_000
        let targets = (0..<lookups).map { _ in URL(string: "http://127.0.0.1" + paths[Int.random(in: 0..<paths.count, using: &generator)])! }
        var hits = 0
        let replaySeconds = Measure.seconds {
            for url in targets {
                if (try? session.replay(TransportRequest(method: .get, url: url))) != nil { hits += 1 }
            }
        }
        // The index alone: one hash lookup under a lock.
        let keys = targets.map { "GET " + $0.path }
        let indexSeconds = Measure.seconds {
            for key in keys {
                if case .hit = session.index.next(for: key) { hits += 1 }
            }
        }
        Measure.printJSON([
            "interactions": paths.count,
            "openSeconds": openSeconds,
            "residentBytesAdded": after - before,
            "bodyBytes": bodyBytes,
            "memoryPerBodyByte": Double(after - before) / Double(max(1, bodyBytes)),
            "replayLookupMicroseconds": replaySeconds / Double(lookups) * 1e6,
            "indexLookupMicroseconds": indexSeconds / Double(lookups) * 1e6,
            "hits": hits,
        ])
    }
}
