import CassetteTools
import Foundation
import HTTPTypes
import WellPlateCore
import WellPlateNetworking

/// Where the index's memory goes: resident bytes per interaction for its parts. A diagnostic for
/// the scale benchmark's memory figure, not part of the report.
enum MemoryProbe {
    static func run(path: String) async throws {
        let store = try await CassetteStore.open(path: path, access: .readOnly)
        var r0 = Measure.residentBytes()
        let interactions = try await store.interactions(cassette: nil)
        var r1 = Measure.residentBytes()
        let count = interactions.count
        let body = interactions.reduce(0) { $0 + $1.responseBody.count }
        print("interactions array:", (r1 - r0) / count, "B each; body", body / count)
        r0 = Measure.residentBytes()
        let headers = interactions.map { HeaderCopy(fields: $0.responseHeaders) }
        r1 = Measure.residentBytes()
        print("response headers retained alone (shared storage, so ~0):", (r1 - r0) / count)
        r0 = Measure.residentBytes()
        let fresh = interactions.map { interaction -> HTTPFields in
            var fields = HTTPFields()
            for field in interaction.responseHeaders {
                fields.append(HTTPField(name: HTTPField.Name(field.name.rawName)!, value: String(field.value.utf8.map { Character(UnicodeScalar($0)) })))
            }
            return fields
        }
        r1 = Measure.residentBytes()
        print("a fresh HTTPFields with \(interactions[0].responseHeaders.count) fields:", (r1 - r0) / count)
        r0 = Measure.residentBytes()
        let datas = interactions.map { Data($0.responseBody) + Data([0]) }
        r1 = Measure.residentBytes()
        print("a fresh Data copy of the body:", (r1 - r0) / count)
        let index = ReplayIndex(cassette: "bench", interactions: interactions)
        let r2 = Measure.residentBytes()
        print("index on top:", (r2 - r1) / count)
        _ = (headers.count, fresh.count, datas.count, index.keys.count)
    }

    struct HeaderCopy { let fields: HTTPFields }

    static func openBreakdown(path: String) async throws {
        var clock = ContinuousClock.now
        func lap(_ label: String) {
            print(label, ContinuousClock.now - clock)
            clock = .now
        }
        let store = try await CassetteStore.open(path: path, access: .readOnly)
        lap("store open")
        _ = try await store.cassette(named: "bench")
        lap("cassette info")
        let rows = try await store.count(cassette: nil)
        lap("count \(rows)")
        let plain = try await store.interactions(cassette: "bench")
        lap("read \(plain.count) interactions")
        _ = ReplayIndex(cassette: "bench", interactions: plain)
        lap("index from array")
        _ = try await store.replayIndex(cassette: "bench", sequencePolicy: .repeatLast)
        lap("streamed index")
        _ = try await store.maxRowID()
        lap("max row id")
    }
}
