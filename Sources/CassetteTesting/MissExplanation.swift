import WellPlateCore
import WellPlateNetworking

/// A miss told to someone running tests: what was asked, where it looked, the nearest recordings
/// and what differs, and how to record it from the test run.
struct MissExplanation {
    let text: String

    /// How to record a missed request from the test run.
    static let advice = ". Record it by running the test with CASSETTE_RECORD=missing (outside CI), or fix the request."

    init(_ miss: CassetteMiss, recordings: Int? = nil) {
        text = miss.summary(recordingsInCassette: recordings) + Self.advice
    }
}
