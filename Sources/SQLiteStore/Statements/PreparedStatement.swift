internal import GRDB

/// A statement prepared once on a ``StoreConnection`` and run many times with different values,
/// each bound straight through SQLite's C API: what per-row work costs least with.
package final class PreparedStatement {
    let statement: Statement
    private let path: String

    init(statement: Statement, path: String) {
        self.statement = statement
        self.path = path
    }

    /// The SQL text.
    package var sql: String { statement.sql }

    /// Runs the statement (one that returns no rows) with `values` bound by position.
    package func run(_ values: [SQLValue]) throws {
        do { try statement.run(values) } catch let error as DatabaseError { throw StoreError.from(error, path: path) }
    }

    /// The rows the statement returns with `values` bound by position.
    package func rows(_ values: [SQLValue]) throws -> [[SQLValue]] {
        do { return try statement.rows(values) } catch let error as DatabaseError {
            throw StoreError.from(error, path: path)
        }
    }
}
