import Foundation

/// Reads part of a large cassette (a range of row ids) on a thread of its own, with a read-only
/// connection of its own, while the store's connection reads the rest: on more than one core a
/// million recordings load in little more than half the time.
///
/// `@unchecked Sendable`: `outcome` is written once, by the reading thread, before it signals
/// `done`, and read only after `join` has waited for `done`, which orders the write before the
/// read; everything else is immutable.
final class RowRangeReader: @unchecked Sendable {
    typealias Row = (interaction: Interaction, responseHeaderBlock: Int)

    private let path: String
    private let cassette: String
    private let rules: MatchingRules?
    private let rows: ClosedRange<Int64>
    private let streamedRows: Set<Int64>
    private let done = DispatchSemaphore(value: 0)
    private var outcome: Result<[Row], any Error> = .success([])

    init(path: String, cassette: String, rules: MatchingRules?, rows: ClosedRange<Int64>, streamedRows: Set<Int64> = []) {
        self.path = path
        self.streamedRows = streamedRows
        self.cassette = cassette
        self.rules = rules
        self.rows = rows
    }

    package func start() {
        let thread = Thread { [self] in
            // Named from inside (see `CurlMultiLoop`).
            Thread.current.name = "cassette-load"
            outcome = Result { try read() }
            done.signal()
        }
        thread.start()
    }

    /// The rows in row order, once read; rethrows what reading them threw.
    func join() throws -> [Row] {
        done.wait()
        return try outcome.get()
    }

    private func read() throws -> [Row] {
        let connection = try SQLiteConnection(path: path, mode: .readOnly)
        defer { try? connection.close() }
        try connection.execute("PRAGMA mmap_size = 1073741824")
        let statement = try connection.prepare("SELECT \(InteractionColumn.selectList) FROM interactions WHERE cassette = ? AND id BETWEEN ? AND ?")
        try statement.bind(cassette, at: 1)
        try statement.bind(rows.lowerBound, at: 2)
        try statement.bind(rows.upperBound, at: 3)
        var reader = InteractionRowReader(derivesContentLength: true, packsBodies: true, streamedRows: streamedRows)
        var result: [Row] = []
        result.reserveCapacity(Int(clamping: rows.count))
        while try statement.step() {
            var (interaction, block) = try reader.read(statement, cassette: cassette, leavingBody: false)
            if let rules {
                interaction.key = RequestKey(recording: interaction, rules: rules).rawValue
            }
            // Block numbers of this reader are odd, the store's even: equal numbers, equal blocks.
            result.append((interaction, block * 2 + 1))
        }
        statement.reset()
        return result
    }
}
