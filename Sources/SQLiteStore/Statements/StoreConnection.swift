internal import GRDB

/// A store's open connection, lent for the length of a closure (``PersistentStore/withConnection(_:)``,
/// ``PersistentStore/withReadConnection(_:)``): it runs ``SQLStatement``s — on the store and on
/// the databases attached to it — and reads their rows back as ``SQLValue``s.
///
/// This is the one door through which the modules above SQLiteStore reach SQLite: the migration
/// engine compiles the statements a step needs and runs them here, and so never depends on the
/// SQLite library underneath. It is also the door for tests and benchmarks that need a raw
/// connection to a store (set rows up, count VM steps with ``SQLiteWorkCounter``, hold a write
/// lock): they go through it rather than through the engine. Every failure is a ``StoreError``
/// naming the store. The connection must not be used after its closure returns.
package final class StoreConnection {
    let db: Database
    /// The store file the connection opened: it names the store in errors.
    package let path: String
    /// Statements prepared through ``prepare(_:)``, by text.
    private var prepared: [String: PreparedStatement] = [:]

    init(db: Database, path: String) {
        self.db = db
        self.path = path
    }

    /// How a transaction takes its locks.
    package enum TransactionKind: Sendable {
        /// The write lock is taken by the first write (SQLite's default).
        case deferred
        /// The write lock is taken at once: nothing else can commit until this one ends.
        case immediate
    }

    /// Runs `statement`, which must have every argument bound.
    package func execute(_ statement: SQLStatement) throws {
        // GRDB's arguments hold text as Strings: text that is not UTF-8 is bound by the C API.
        if statement.values.contains(where: { if case .undecodableText = $0 { true } else { false } }) {
            return try converting { try db.makeStatement(sql: statement.sql).run(statement.values) }
        }
        try converting {
            try db.execute(sql: statement.sql, arguments: StatementArguments(statement.values.map(\.databaseValue)))
        }
    }

    /// Rows the last `INSERT`, `UPDATE` or `DELETE` run on this connection inserted, changed or
    /// deleted (SQLite's `changes()`; not counting what triggers did).
    package var changes: Int { db.changesCount }

    /// Runs `statements` in order.
    package func execute(_ statements: some Sequence<SQLStatement>) throws {
        for statement in statements { try execute(statement) }
    }

    /// Every row `statement` returns, each column as stored, byte for byte (read through SQLite's
    /// C API: GRDB's rows cut text at a NUL and replace bytes that are not UTF-8).
    package func rows(_ statement: SQLStatement) throws -> [[SQLValue]] {
        try converting { try db.makeStatement(sql: statement.sql).rows(statement.values) }
    }

    /// Every row `statement` returns, with the result's column names as SQLite gives them (a
    /// column's `AS` name, else its own): what shows a query's result as a table, header and all,
    /// as the demos do after each step.
    package func table(_ statement: SQLStatement) throws -> (columns: [String], rows: [[SQLValue]]) {
        try converting {
            let prepared = try db.makeStatement(sql: statement.sql)
            return (prepared.columnNames, try prepared.rows(statement.values))
        }
    }

    /// The first row `statement` returns, if any.
    package func row(_ statement: SQLStatement) throws -> [SQLValue]? {
        try converting { try db.makeStatement(sql: statement.sql).firstRow(statement.values) }
    }

    /// The first column of the first row as an integer; nil when there is no row or the value is
    /// not an integer (a count, a `max(Z_PK)` of an empty table).
    package func integer(_ statement: SQLStatement) throws -> Int64? {
        try row(statement)?.first?.integer
    }

    /// The first column of every row, as text (rows whose value is not text are left out).
    package func strings(_ statement: SQLStatement) throws -> [String] {
        try rows(statement).compactMap { $0.first?.text }
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    package func inTransaction(_ kind: TransactionKind = .deferred, _ body: () throws -> Void) throws {
        try converting {
            try db.inTransaction(kind == .immediate ? .immediate : .deferred) {
                try body()
                return .commit
            }
        }
    }

    /// `sql` prepared once for running many times with different values (a row-by-row insert, a
    /// look-up per row); the same text gives the same prepared statement.
    package func prepare(_ sql: String) throws -> PreparedStatement {
        if let known = prepared[sql] { return known }
        let statement = try converting { PreparedStatement(statement: try db.makeStatement(sql: sql), path: path) }
        prepared[sql] = statement
        return statement
    }

    /// Attaches the database at `location` (a path, or a `file:` URI such as
    /// ``PersistentStore/readOnlyURI``) under the name `schema`.
    package func attach(_ location: String, as schema: String) throws {
        try execute(SQLStatement("ATTACH DATABASE ? AS \(SQLIdentifier.quote(schema))", [.text(location)]))
    }

    /// Detaches the database attached as `schema`.
    package func detach(_ schema: String) throws {
        try execute(SQLStatement("DETACH DATABASE \(SQLIdentifier.quote(schema))"))
    }

    /// Runs `body`, turning an SQLite failure into a ``StoreError`` naming the store (what `body`
    /// throws itself passes through as it is).
    func converting<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as DatabaseError { throw StoreError.from(error, path: path) }
    }
}
