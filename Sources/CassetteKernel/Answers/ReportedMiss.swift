import WellPlateCore

/// A miss carried by its answer to the writer, for a session's journal and summary
/// (`SessionJournal`). A class, so an answer that is not a miss pays one empty reference for it.
package final class ReportedMiss: Sendable {
    package let miss: CassetteMiss

    package init(_ miss: CassetteMiss) {
        self.miss = miss
    }
}
