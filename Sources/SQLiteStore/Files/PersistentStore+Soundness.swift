internal import GRDB

extension PersistentStore {
    /// Throws unless the store passes SQLite's `quick_check`, which reads every page and checks
    /// every b-tree: a page damaged anywhere in the file is found before a migration's first
    /// write, at the cost of reading the whole file (asked for with `migrate --check-pages`).
    package func requireSound() throws {
        let problems = try read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
        guard problems != ["ok"] else { return }
        // SQLite's first problem line may hold several (`*** in database main ***` and the first).
        let lines = problems.flatMap { $0.split(separator: "\n").map(String.init) }.filter { !$0.hasPrefix("***") }
        throw StoreError(
            .corrupt, path: path,
            """
            fails SQLite's quick check: \
            \(lines.prefix(3).joined(separator: "; "))\(lines.count > 3 ? " (\(lines.count) problems)" : "")
            """,
            fix: "restore the store from a backup; `sqlite3 STORE .recover` may save some rows")
    }

    /// Opens the store at `path` read-only and requires it sound (see ``requireSound()``).
    package static func requireSound(at path: String) throws {
        let store = try PersistentStore.open(at: path)
        defer { try? store.close() }
        try store.requireSound()
    }
}

extension StoreConnection {
    /// SQLite's `quick_check` of the store (`main`): `["ok"]`, or the problems found. It reads
    /// every page and checks every b-tree, which is what a failed or torn write breaks.
    package func quickCheck() throws -> [String] {
        try converting { try String.fetchAll(db, sql: "PRAGMA main.quick_check") }
    }

    /// SQLite's `integrity_check`: the quick check, and every index cross-checked with its table.
    package func integrityCheck() throws -> [String] {
        try converting { try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }
}
