internal import GRDB

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

extension StoreConnection {
    /// SQLite's `quick_check` of the store (`main`): `["ok"]`, or the problems found. It reads
    /// every page and checks every b-tree, which is what a failed or torn write breaks.
    public func quickCheck() throws -> [String] {
        try converting { try String.fetchAll(db, sql: "PRAGMA main.quick_check") }
    }

    /// SQLite's `integrity_check`: the quick check, and every index cross-checked with its table.
    public func integrityCheck() throws -> [String] {
        try converting { try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }
}
