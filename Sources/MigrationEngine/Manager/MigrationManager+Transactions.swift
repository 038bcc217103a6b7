extension MigrationManager {
    /// Runs `body` in one transaction and records the keys handed out, as a save does. An
    /// instance still held back is written before the commit, or dropped with a rollback.
    func transaction(_ body: () throws -> Void) throws {
        defer { passState.pendingInsert = nil }
        try stores.connection.inTransaction {
            try body()
            try passState.writePendingInsert()
            try stores.writer.finish()
        }
    }
}
