import Foundation
import Synchronization
import WellPlateNetworking

/// What one test's client and `URLSession` answer through: the test's cassette session, plus the
/// misses it met, which the trait turns into test issues when the test ends. Both the client and
/// `CassetteURLProtocol` send here, so they share the matching, redaction, sequences and misses.
final class CassetteBinding: HTTPTransport {
    let settings: CassetteSettings
    /// `nil` for the stand-in `Cassette.current` returns outside a trait.
    let session: CassetteSession?
    private let misses = Mutex<[CassetteMiss]>([])

    init(settings: CassetteSettings, session: CassetteSession?) {
        self.settings = settings
        self.session = session
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        guard let session else { throw CassetteTestingError.noTrait }
        do {
            return try await session.respond(to: request).response
        } catch let miss as CassetteMiss {
            misses.withLock { $0.append(miss) }
            throw miss
        }
    }

    /// Every miss so far, first occurrence of each key only.
    var recordedMisses: [CassetteMiss] {
        misses.withLock { misses in
            var seen: Set<String> = []
            return misses.filter { seen.insert($0.key).inserted }
        }
    }

    /// Whether `error`, thrown out of the test, is a miss already reported as an issue.
    func reported(_ error: any Error) -> Bool {
        let keys = Set(misses.withLock { $0.map(\.key) })
        if let miss = error as? CassetteMiss { return keys.contains(miss.key) }
        if let miss = CassetteURLProtocol.miss(in: error) { return keys.contains(miss.key) }
        return false
    }
}
