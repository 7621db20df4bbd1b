import WellPlateCore
import WellPlateNetworking

/// A miss told to someone running tests: what was asked, where it looked, the nearest recordings
/// and what differs, and how to record it from the test run.
struct MissExplanation {
    let text: String

    init(_ miss: CassetteMiss, recordings: Int? = nil) {
        var text: String
        if let exhausted = miss.exhaustedAfter {
            text = "All \(exhausted) recording(s) of \(miss.key) in cassette \"\(miss.cassette)\" (\(miss.storePath)) were already replayed"
        } else {
            text = "No recording of \(miss.key) in cassette \"\(miss.cassette)\" (\(miss.storePath))"
        }
        if recordings == 0 {
            text += "; the cassette has no recordings at all"
        } else if miss.nearest.isEmpty {
            text += "; the cassette has no similar request"
        } else {
            text += "; nearest: " + miss.nearest.map { "\($0.recorded.rawValue) (\($0.items.map(\.description).joined(separator: ", ")))" }.joined(separator: "; ")
        }
        text += ". Record it by running the test with CASSETTE_RECORD=missing (outside CI), or fix the request."
        self.text = text
    }
}
