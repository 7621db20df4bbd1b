import CassetteTesting
import Foundation
import TestSupport
import Testing
import WellPlateCore
import WellPlateNetworking

/// The trait in a recording mode: requests reach a live sample API through libcurl and land in
/// the test's cassette.
@Suite(.cassetteFixture(RecordingFixture.store, { [] }))
struct CassetteRecordingTests {
    static let store = RecordingFixture.store

    @Test(.cassette(store: RecordingFixture.store, mode: .all))
    func recordsThroughTheClientIntoTheTestsCassette() async throws {
        let user = try await withSampleAPI { base in
            try await Cassette.current.client.get(url: base.appending(path: "api/users/1"), responseType: User.self)
        }
        #expect(user.name == "Ada Lovelace")
        #expect(Cassette.current.session?.statistics.recorded == 1)
        let stored = try await storedInteractions(Self.store, cassette: "CassetteRecordingTests/recordsThroughTheClientIntoTheTestsCassette()")
        #expect(stored.map(\.key) == ["GET /api/users/1"])
        #expect(stored.first?.statusCode == 200)
    }
}

enum RecordingFixture {
    static let store = CassetteFixture.path("recording")
}
