import Foundation

extension CassetteStore {
    /// Reads the interactions of one cassette (or all) row by row, without holding them all:
    /// `body` sees each one and the reading stops when it returns `false`.
    package func forEachInteraction(cassette: String?, _ body: (Interaction) throws -> Bool) throws(CassetteStoreError) {
        try reading { connection in
            let statement = try Self.interactionsStatement(connection, cassette: cassette)
            var reader = InteractionRowReader()
            while try statement.step() {
                guard try body(reader.read(statement)) else { return }
            }
        }
    }
}
