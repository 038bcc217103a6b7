import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore

/// The SQL side of `wire-upgrade`: Wire's 69 versions of changes as one script, run on the store
/// in one transaction by SQLite alone — what a person would run by hand with the `sqlite3` shell.
///
/// The script is the statements `chrysalis plan --sql` prints for the step (every table rebuilt,
/// column added, index and trigger made, as SQL literals), so the comparison measures what
/// Chrysalis adds around its SQL: its lock, checks, the other-process look, its journal,
/// progress and the verification of the schema and row counts. Whether those statements are the
/// fastest SQL for each kind of change is measured against truly hand-written SQL by the
/// `rebuild-*` scenarios. The bookkeeping a hand-written script also writes (`Z_PRIMARYKEY`'s
/// rows, `Z_METADATA`'s hashes, the dropped `Z_MODELCACHE`) are taken as literal rows from one
/// untimed Chrysalis run, as a person would paste them.
struct WireBaseline {
    /// The statements, in order, as SQL text.
    let statements: [String]
    /// Tables the step rebuilds (new table, copy, drop, rename).
    let rebuilt: Int
    /// The rows of `Z_PRIMARYKEY` and `Z_METADATA` at the destination version.
    private let primaryKeys: [Row], metadata: [Row]
    private let dropsModelCache: Bool

    /// The script for migrating `source` straight to the bundle's current version; `scratch` is
    /// where the untimed Chrysalis run that gives the bookkeeping rows happens.
    static func script(source: String, bundle: ModelBundle, scratch: String) throws -> WireBaseline {
        let plan = try MigrationPlan.make(store: source, bundle: bundle)
        guard let step = try plan.statements(store: source).first, plan.steps.count == 1 else {
            throw BenchError("no single step to script")
        }
        let statements = step.parts.flatMap(\.statements)
        guard statements.allSatisfy(\.isBound) else {
            throw BenchError("the step's SQL has parameters bound only as it runs")
        }
        try ScenarioRun.removeStore(scratch)
        try FileManager.default.copyItem(atPath: source, toPath: scratch)
        _ = try MigrationRunner.run(plan, store: scratch, keepBackup: false)
        let queue = try DatabaseQueue(path: scratch)
        defer { try? queue.close() }
        let (primaryKeys, metadata, cache) = try queue.read { db in
            (
                try Row.fetchAll(db, sql: "SELECT * FROM Z_PRIMARYKEY"),
                try Row.fetchAll(db, sql: "SELECT * FROM Z_METADATA"),
                try db.tableExists("Z_MODELCACHE")
            )
        }
        return WireBaseline(
            statements: statements.map(\.description),
            rebuilt: statements.filter { $0.sql.hasPrefix("ALTER TABLE") && $0.sql.contains(" RENAME TO ") }.count,
            primaryKeys: primaryKeys, metadata: metadata, dropsModelCache: !cache)
    }

    /// Runs the script on the store at `path`, in one transaction.
    func run(on path: String) throws {
        try BaselineSteps.shared.time("in place") {
            let queue = try DatabaseQueue(path: path)
            try queue.write { db in
                for statement in statements { try db.execute(sql: statement) }
                try db.execute(sql: "DELETE FROM Z_PRIMARYKEY")
                for row in primaryKeys { try insert(row, into: "Z_PRIMARYKEY", db) }
                try db.execute(sql: "DELETE FROM Z_METADATA")
                for row in metadata { try insert(row, into: "Z_METADATA", db) }
                if dropsModelCache { try db.execute(sql: "DROP TABLE IF EXISTS Z_MODELCACHE") }
            }
            try queue.close()
        }
    }

    private func insert(_ row: Row, into table: String, _ db: Database) throws {
        let columns = Array(row.columnNames)
        try db.execute(
            sql:
                "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))",
            arguments: StatementArguments(columns.map { row[$0] as DatabaseValue }))
    }
}
