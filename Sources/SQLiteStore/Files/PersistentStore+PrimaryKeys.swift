internal import GRDB

extension PersistentStore {
    /// The entity numbering the store itself records in `Z_PRIMARYKEY`, every value checked.
    package func recordedNumbering() throws -> EntityNumbering {
        try read { db in try PrimaryKeyTable.read(db, path: path).numbering }
    }
}
