import Foundation
import TestSupport
import Testing

@testable import WellPlateCore
@testable import WellPlateNetworking

/// The column enums the store reads rows by stay in step with the tables the migrations create.
@Suite("Cassette schema columns")
struct CassetteSchemaTests {
    /// Selects `Column.selectList` from `table` in a fresh store and returns, per case, the name
    /// SQLite reports at the case's position.
    private func reportedNames<Column: SQLiteColumn>(_: Column.Type, from table: String) throws -> [String] {
        let connection = try SQLiteConnection(path: ":memory:", mode: .readWriteCreate)
        try CassetteSchema.migrator.migrate(connection)
        let statement = try connection.prepare("SELECT \(Column.selectList) FROM \(table)")
        #expect(statement.columnCount == Column.allCases.count)
        return Column.allCases.map { statement.columnName(at: $0.rawValue) }
    }

    @Test func interactionColumnsNameTheInteractionsTableInOrder() throws {
        let names = try reportedNames(InteractionColumn.self, from: "interactions")
        #expect(
            names == [
                "id", "cassette", "method", "url", "request_key", "sequence", "request_headers", "request_body", "status",
                "response_headers", "response_body", "content_encoding", "recorded_at", "duration_ms",
            ])
    }

    @Test func cassetteInfoColumnsNameTheCassettesTable() throws {
        #expect(try reportedNames(CassetteInfoColumn.self, from: "cassettes") == ["name", "upstream", "matching_rules", "created_at"])
    }

    @Test func anEnumMayGiveItsOwnExpressionForAComputedColumn() throws {
        enum Counted: Int, SQLiteColumn {
            case cassette, total
            var expression: String { self == .total ? "count(*) AS total" : defaultExpression }
        }
        #expect(Counted.selectList == "cassette, count(*) AS total")
        #expect(try reportedNames(Counted.self, from: "interactions") == ["cassette", "total"])
    }
}
