internal import GRDB

/// Rows a migration has finished with but not written yet, written several to a statement.
///
/// A row-by-row mapping inserts one instance per source object, and often a link or two with it,
/// and a one-row `INSERT` costs a statement execution per row. Queued, a table's rows go in
/// ``RowQueue/batchRows`` to a multi-row `INSERT`. A queued row is invisible to SQL until it is
/// written, so the writer writes its queues before anything else it does, and whoever reads or
/// writes the store by other means calls ``writeQueuedInserts()`` (or ``writeQueuedInserts(into:)``
/// for the one table it reads) first. Only a store with no triggers may be written out of order
/// this way: a migration's new store gets its triggers after its passes.
extension ObjectWriter {
    /// Queues `pending`'s row; a full batch is written at once.
    package func queue(_ pending: consuming PendingInsert) throws {
        let rows = pending.shape.rows
        let row = (consume pending).arguments
        try queue(row, in: rows)
        spareRow = row
    }

    /// A new row holding `defaults`, in the array of the row queued last (its values are copied
    /// into the queue): a policy's insert then allocates no array per row.
    func freshRow(_ defaults: [SQLValue]) -> [SQLValue] {
        var row: [SQLValue] = []
        swap(&row, &spareRow)
        // Rows of one table follow each other: the same width, overwritten value by value.
        guard row.count == defaults.count else { return defaults }
        for index in defaults.indices { row[index] = defaults[index] }
        return row
    }

    /// Queues one row of `queue`'s table; a full batch is written at once.
    func queue(_ row: [SQLValue], in queue: RowQueue) throws {
        if queue.isEmpty { queuedTables.append(queue) }
        guard queue.append(row) else { return }
        try queue.write(in: db)
        queuedTables.removeAll { $0 === queue }  // its next row lists it again
    }

    /// Writes every queued row.
    package func writeQueuedInserts() throws {
        guard !queuedTables.isEmpty else { return }
        for queue in queuedTables { try queue.write(in: db) }
        queuedTables.removeAll(keepingCapacity: true)
    }

    /// Writes the rows queued for `table`: what a look-up in that table alone must see first.
    package func writeQueuedInserts(into table: String) throws {
        guard queuedTables.contains(where: { $0.table == table }) else { return }
        for queue in queuedTables where queue.table == table { try queue.write(in: db) }
        queuedTables.removeAll { $0.isEmpty }
    }
}

/// One table's rows waiting to be written, and the statements that write them: a full batch in
/// one multi-row `INSERT`, fewer one row to a statement.
final class RowQueue {
    let table: String
    /// Values per row.
    let width: Int
    /// Rows one multi-row `INSERT` writes: 32, fewer for a wide table, so a statement binds at
    /// most 999 values (SQLite's oldest limit).
    let batchRows: Int
    /// Rows written so far, queued or not.
    private(set) var written = 0
    /// The queued rows' values, one row after another, and how many rows.
    private var values: [SQLValue] = []
    private var rows = 0
    /// `INSERT [OR IGNORE] INTO table (columns)`: the statements' common start.
    private let insertInto: String
    /// Prepared once and kept here: finding them in GRDB's cache hashes the SQL every row.
    private var single: Statement?, batch: Statement?

    init(table: String, insertInto: String, width: Int) {
        (self.table, self.insertInto, self.width) = (table, insertInto, width)
        batchRows = max(1, min(32, 999 / max(width, 1)))
    }

    var isEmpty: Bool { rows == 0 }

    /// Adds a row; true when the batch is full and should be written.
    func append(_ row: [SQLValue]) -> Bool {
        values.append(contentsOf: row)
        rows += 1
        return rows == batchRows
    }

    /// Writes one row at once; the caller has written every queue first (``ObjectWriter/run(_:)``).
    func run(_ row: [SQLValue], in db: Database) throws {
        try singleStatement(in: db).run(row)
        written += 1
    }

    /// Writes the queued rows.
    func write(in db: Database) throws {
        let count = rows
        guard count > 0 else { return }
        // Emptied whatever happens: a failed write fails the step, which rolls back.
        defer { values.removeAll(keepingCapacity: true); rows = 0 }
        if count == batchRows {
            try batchStatement(in: db).run(values)
        } else {
            let statement = try singleStatement(in: db)
            for row in 0..<count { try statement.run(values[row * width..<(row + 1) * width]) }
        }
        written += count
    }

    private func singleStatement(in db: Database) throws -> Statement {
        if let single { return single }
        let made = try db.makeStatement(sql: "\(insertInto) VALUES \(Self.row(width))")
        single = made
        return made
    }

    private func batchStatement(in db: Database) throws -> Statement {
        if let batch { return batch }
        let made = try db.makeStatement(
            sql: "\(insertInto) VALUES " + Array(repeating: Self.row(width), count: batchRows).joined(separator: ", "))
        batch = made
        return made
    }

    private static func row(_ width: Int) -> String {
        "(" + Array(repeating: "?", count: width).joined(separator: ", ") + ")"
    }
}
