import Foundation
import GRDB
import ObjectModel
import SQLiteStore

/// The hand-written SQL each scenario is measured against, done the way each step kind works:
/// a lightweight change alters the store in place in one transaction; a mapping-model change
/// builds the destination as a new file with `INSERT … SELECT` from the attached source, creates
/// the indexes after the load, and replaces the source with it.
enum SQLBaseline {
    /// Runs `sql` on the store at `path` in one transaction.
    static func inPlace(_ path: String, _ sql: String) throws {
        try BaselineSteps.shared.time("in place") {
            let queue = try DatabaseQueue(path: path)
            try queue.write { db in try db.execute(sql: sql) }
            try queue.close()
        }
    }

    /// Builds a store of `model` beside `path` from `sql` (run with the source attached as `src`),
    /// then moves it over the source. The tables and index statements are Core Data's, so both
    /// sides end with the same schema; `Z_PRIMARYKEY` is copied by the caller's SQL.
    static func copy(_ path: String, into model: ManagedObjectModel, _ sql: String) throws {
        try BaselineSteps.shared.time("into a new file") { try build(path, into: model, sql) }
    }

    private static func build(_ path: String, into model: ManagedObjectModel, _ sql: String) throws {
        let destination = path + ".baseline-new"
        for file in StoreFiles.paths(of: destination) { unlink(file) }
        let schema = StoreSchema(layout: StoreLayout(model: model))
        let queue = try DatabaseQueue(path: destination)
        try queue.writeWithoutTransaction { db in
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "ATTACH DATABASE ? AS src", arguments: [path])
            try db.inTransaction {
                for statement in schema.statements
                where !statement.hasPrefix("CREATE INDEX") && !statement.hasPrefix("CREATE UNIQUE INDEX") {
                    try db.execute(sql: statement)
                }
                try db.execute(sql: sql)
                for statement in schema.statements
                where statement.hasPrefix("CREATE INDEX") || statement.hasPrefix("CREATE UNIQUE INDEX") {
                    try db.execute(sql: statement)
                }
                try db.execute(sql: "INSERT INTO Z_METADATA SELECT * FROM src.Z_METADATA")
                return .commit
            }
            try db.execute(sql: "DETACH DATABASE src")
        }
        try queue.close()
        for file in StoreFiles.sidecars(of: path) { unlink(file) }
        guard rename(destination, path) == 0 else { throw BenchError("could not move \(destination) to \(path)") }
    }
}

/// The seconds each hand-written step took, for `--stages`: a chain's baseline runs several, and
/// comparing them step by step with Chrysalis's shows which step holds the difference.
final class BaselineSteps: @unchecked Sendable {
    static let shared = BaselineSteps()
    private let lock = NSLock()
    private var lines: [String] = []

    func time(_ label: String, _ work: () throws -> Void) rethrows {
        let started = Date()
        try work()
        let seconds = Date().timeIntervalSince(started)
        lock.withLock { lines.append(String(format: "  %8.3f s  step %d %@", seconds, lines.count + 1, label)) }
    }

    /// The steps timed since the last call, and forgets them.
    func take() -> [String] {
        lock.withLock {
            defer { lines = [] }; return lines
        }
    }
}
