internal import GRDB

/// Rows a migration has finished with but not written yet, written several to a statement.
///
/// A row-by-row mapping inserts one instance per source object, and a one-row `INSERT` costs a
/// statement execution per row. Queued, a table's rows go in ``InsertShape/batchRows`` to a
/// multi-row `INSERT`. A queued row is invisible to SQL until it is written, so the writer writes
/// its queues before anything else it does, and whoever reads or writes the store by other means
/// calls ``writeQueuedInserts()`` (or ``writeQueuedInserts(into:)`` for the one table it reads)
/// first. Only a store with no triggers may be written out of order this way: a migration's new
/// store gets its triggers after its passes.
extension ObjectWriter {
    /// Queues `pending`'s row; a full batch is written at once.
    package func queue(_ pending: PendingInsert) throws {
        let shape = pending.shape
        if shape.queuedRows == 0 { queuedShapes.append(shape) }
        shape.queued.append(contentsOf: pending.arguments)
        shape.queuedRows += 1
        guard shape.queuedRows == shape.batchRows else { return }
        try write(queueOf: shape)
        queuedShapes.removeAll { $0 === shape }  // its next row lists it again
    }

    /// Writes every queued row.
    package func writeQueuedInserts() throws {
        guard !queuedShapes.isEmpty else { return }
        for shape in queuedShapes { try write(queueOf: shape) }
        queuedShapes.removeAll(keepingCapacity: true)
    }

    /// Writes the rows queued for `table`: what a look-up in that table alone must see first.
    package func writeQueuedInserts(into table: String) throws {
        guard queuedShapes.contains(where: { $0.table == table }) else { return }
        for shape in queuedShapes where shape.table == table { try write(queueOf: shape) }
        queuedShapes.removeAll { $0.queuedRows == 0 }
    }

    /// Writes `shape`'s queue: a full batch in one statement, fewer rows one statement each.
    private func write(queueOf shape: InsertShape) throws {
        let rows = shape.queuedRows
        guard rows > 0 else { return }
        // Emptied whatever happens: a failed write fails the step, which rolls back.
        defer { shape.queued.removeAll(keepingCapacity: true); shape.queuedRows = 0 }
        if rows == shape.batchRows {
            try shape.batchStatement(in: db).run(shape.queued)
        } else {
            let single = try shape.statement(in: db), width = shape.defaults.count
            for row in 0..<rows { try single.run(shape.queued[row * width ..< (row + 1) * width]) }
        }
        shape.inserted += rows
    }
}
