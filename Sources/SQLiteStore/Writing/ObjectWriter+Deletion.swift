internal import GRDB

extension ObjectWriter {
    /// Removes the row of `id`. Its relationships are the caller's: a context applies the
    /// model's delete rules first (nullify, cascade, deny), as Core Data does when it saves.
    package func delete(_ id: ObjectID) throws {
        try writeQueuedInserts()
        let (_, table, _) = try resolve(try name(of: id))
        try db.cachedStatement(sql: "DELETE FROM \(t(table.name)) WHERE Z_PK = ? AND Z_ENT = ?").run([
            .integer(id.primaryKey), SQLValue(id.entityNumber),
        ])
    }
}
