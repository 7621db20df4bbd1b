import Foundation
import WellPlateCore

/// A cassette's unused recordings and gRPC methods (`api/cassettes`' `unused` and
/// `unusedGRPCMethods`): as the serving proxy counts them for its own cassette, else from the
/// usage that replays saved with `--track-usage`, so `cassette ui` shows the figures the proxy's
/// summary gave. Both count keys (a key served once is used) and a method apart from the
/// recordings (it is not one). Both are `null` when nothing can know: no replay of the cassette
/// was tracked.
extension UICatalog {
    func unused(of summary: CassetteSummary, served: Int?, servedMethods: Int?) async throws -> (recordings: JSONValue, methods: JSONValue) {
        if let served { return (.integer(Int64(served)), servedMethods.map { .integer(Int64($0)) } ?? .null) }
        guard let unused = try await store.unusedKeys(cassette: summary.name) else { return (.null, .null) }
        return (.integer(Int64(unused.recordings)), unused.grpcMethods.map { .integer(Int64($0)) } ?? .null)
    }
}
