import GRDB

extension PersistentStore {
    /// Throws unless the store passes SQLite's `quick_check`, which reads every page and checks
    /// every b-tree: a page damaged in the middle of the file is found before a migration's first
    /// write, not half way through a chain of steps.
    public func requireSound() throws {
        let problems = try read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
        guard problems != ["ok"] else { return }
        throw StoreError(.corrupt, path: path, "fails SQLite's quick check: \(problems.prefix(3).joined(separator: "; "))",
                         fix: "restore the store from a backup; `sqlite3 STORE .recover` may save some rows")
    }
}
