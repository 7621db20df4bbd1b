import Foundation

/// The columns of one SELECT, declared once as an enum: the cases' order is the SELECT list's
/// order, so each column is read by its name and never by a position kept in step with the SQL
/// by hand. Raw values are left to the compiler (0, 1, 2, ... in declaration order).
protocol SQLiteColumn: CaseIterable, RawRepresentable where RawValue == Int {
    /// The column's SQL: by default the case name in snake_case (`requestKey` is `request_key`);
    /// an enum gives its own for computed columns (`count(*)`).
    var expression: String { get }
}

extension SQLiteColumn {
    var expression: String { defaultExpression }

    /// The case name in snake_case, for enums that name only some columns themselves.
    var defaultExpression: String {
        var name = ""
        for character in String(describing: self) {
            if character.isUppercase {
                name += "_" + character.lowercased()
            } else {
                name.append(character)
            }
        }
        return name
    }

    /// `a, b, c`: the SELECT list, in case order.
    static var selectList: String {
        allCases.map(\.expression).joined(separator: ", ")
    }
}

extension SQLiteStatement {
    func isNull(_ column: some SQLiteColumn) -> Bool { isNull(at: column.rawValue) }
    func int64(_ column: some SQLiteColumn) -> Int64 { int64(at: column.rawValue) }
    func int(_ column: some SQLiteColumn) -> Int { int(at: column.rawValue) }
    func double(_ column: some SQLiteColumn) -> Double { double(at: column.rawValue) }
    func text(_ column: some SQLiteColumn) -> String { text(at: column.rawValue) }
    func blob(_ column: some SQLiteColumn) -> Data { blob(at: column.rawValue) }

    /// The column's text, or `nil` for SQL NULL.
    func optionalText(_ column: some SQLiteColumn) -> String? {
        isNull(column) ? nil : text(column)
    }

    /// The column as seconds since 1970.
    func date(_ column: some SQLiteColumn) -> Date {
        Date(timeIntervalSince1970: double(column))
    }

    func withTextBytes<Result>(_ column: some SQLiteColumn, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try withTextBytes(at: column.rawValue, body)
    }

    func withBlobBytes<Result>(_ column: some SQLiteColumn, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try withBlobBytes(at: column.rawValue, body)
    }
}
