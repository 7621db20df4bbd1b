import Foundation

/// A Swift value that can be bound to a statement parameter; lets `run(_:)` and `bind(_:)` take mixed values.
///
/// Pass `nil` (or an optional holding `nil`) to bind SQL `NULL`.
protocol SQLiteBindable {
    /// Binds `self` to the 1-based parameter `index` of `statement`.
    func bind(to statement: SQLiteStatement, at index: Int) throws(SQLiteError)
}

extension Int: SQLiteBindable {
    func bind(to statement: SQLiteStatement, at index: Int) throws(SQLiteError) {
        try statement.bind(self, at: index)
    }
}

extension Int64: SQLiteBindable {
    func bind(to statement: SQLiteStatement, at index: Int) throws(SQLiteError) {
        try statement.bind(self, at: index)
    }
}

extension Double: SQLiteBindable {
    func bind(to statement: SQLiteStatement, at index: Int) throws(SQLiteError) {
        try statement.bind(self, at: index)
    }
}

extension Bool: SQLiteBindable {
    func bind(to statement: SQLiteStatement, at index: Int) throws(SQLiteError) {
        try statement.bind(self, at: index)
    }
}

extension String: SQLiteBindable {
    func bind(to statement: SQLiteStatement, at index: Int) throws(SQLiteError) {
        try statement.bind(self, at: index)
    }
}

extension Data: SQLiteBindable {
    func bind(to statement: SQLiteStatement, at index: Int) throws(SQLiteError) {
        try statement.bind(self, at: index)
    }
}

extension [UInt8]: SQLiteBindable {
    func bind(to statement: SQLiteStatement, at index: Int) throws(SQLiteError) {
        try statement.bind(self, at: index)
    }
}
