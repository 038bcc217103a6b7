import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore

/// Runs a demo from start to end without a console: creates the example's oldest store with the
/// text's rows plus generated ones, migrates it stop by stop, and reports what the worked
/// example shows at each stop.
public struct DemoRunner {
    /// What the demo has to say, in order.
    public enum Event {
        /// A line of narration.
        case message(String)
        /// Generated rows so far, of the total.
        case generating(done: Int, total: Int)
        /// A query and its result.
        case query(title: String, columns: [String], rows: [[String]])
    }

    /// The demo.
    public let example: DemoExample
    /// The folder the store is made in.
    public let directory: URL
    /// Generated rows per root entity, on top of the text's own.
    public var rows: Int
    /// The generator's seed.
    public var seed: UInt64 = 1
    /// Lets the caller stop between chunks.
    public var cancellation = CancellationToken()

    /// A runner for `example` in `directory`.
    public init(example: DemoExample, directory: URL, rows: Int) {
        self.example = example
        self.directory = directory
        self.rows = rows
    }

    /// The store the demo works on.
    public var storePath: String {
        directory.appendingPathComponent(example.storeName + ".sqlite").path
    }

    /// Creates the starting store: the text's rows, then `rows` generated ones.
    public func prepare(_ report: (Event) -> Void) throws -> ModelBundle {
        let bundle = try example.bundle()
        guard let start = bundle.version(named: example.startVersion) else {
            throw MigrationError(.notFound, "the \(example.name) bundle has no version \(example.startVersion)")
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard !FileManager.default.fileExists(atPath: storePath) else {
            throw MigrationError(.notFound, "\(storePath) already exists; the demo never overwrites a store", fix: "give an empty --dir, or remove the file")
        }
        try example.makeStore(storePath, start)
        if rows > 0 {
            let store = try PersistentStore.open(at: storePath, mode: .readWrite)
            try DataGenerator(model: start.model, seed: seed).fill(store, rows: rows) { report(.generating(done: $0, total: rows * start.model.entities.filter { $0.parentName == nil }.count)) }
            try store.close()
        }
        report(.message("Created \(storePath) at \(start.name) with the text's rows\(rows > 0 ? " and \(rows) generated rows per root entity" : "")."))
        for query in example.before { report(try run(query)) }
        return bundle
    }

    /// Migrates stop by stop, reporting each stop's queries; returns the migrations' reports.
    /// `stops` limits it to the first few (the console takes over the rest).
    @discardableResult
    public func migrate(bundle: ModelBundle, options: MigrationOptions, stops: Int? = nil, _ report: (Event) -> Void) throws -> [MigrationRunner.Report] {
        let mappings = try example.mappings()
        var reports: [MigrationRunner.Report] = []
        for stop in example.stops.prefix(stops ?? example.stops.count) {
            let plan = try MigrationPlan.make(store: storePath, bundle: bundle, mappings: mappings, to: stop.version)
            if plan.steps.isEmpty {
                report(.message("The store is already compatible with \(stop.version): nothing to migrate."))
            } else {
                report(.message("Migrating \(plan.storeVersion) → \(stop.version): " + plan.steps.map { "\($0.source.name) → \($0.destination.name) [\($0.kind.name)]" }.joined(separator: ", ")))
                // The original store is kept once, at the first stop; later stops keep no backup.
                reports.append(try MigrationRunner.run(plan, store: storePath, options: options, keepBackup: reports.isEmpty))
            }
            if let action = stop.action, let version = bundle.version(named: stop.version) {
                let store = try PersistentStore.open(at: storePath, mode: .readWrite)
                try action(store, version)
                try store.close()
            }
            report(.message("At \(stop.version):"))
            for query in stop.queries { report(try run(query)) }
        }
        return reports
    }

    /// How many stops run before the console opens: up to the last one with work of its own
    /// (BookStore assigns authors at version 3), so the console shows the steps worth watching.
    public var stopsBeforeConsole: Int {
        (example.stops.lastIndex { $0.action != nil }).map { $0 + 1 } ?? 0
    }

    /// The plan the console runs: from where the store is to the last stop.
    public func consolePlan(bundle: ModelBundle) throws -> MigrationPlan {
        try MigrationPlan.make(store: storePath, bundle: bundle, mappings: try example.mappings(), to: example.stops.last?.version)
    }

    /// Reports the last stop's queries (after the console closes).
    public func reportFinalStop(_ report: (Event) -> Void) throws {
        guard let stop = example.stops.last else { return }
        report(.message("At \(stop.version):"))
        for query in stop.queries { report(try run(query)) }
    }

    /// The options the demos need: their policies and BookStore 5's association hook.
    public func options() -> MigrationOptions {
        MigrationOptions(policies: DemoResources.policies, cancellation: cancellation, configureManager: BookStoreSynopsis.install)
    }

    private func run(_ query: DemoExample.Query) throws -> Event {
        try DatabaseQueue(path: storePath).read { db in
            let rows = try Row.fetchAll(db, sql: query.sql)
            let columns = rows.first.map { Array($0.columnNames) } ?? []
            return .query(title: query.title, columns: columns, rows: rows.map { row in row.databaseValues.map { value in
                switch value.storage {
                case .string(let text): return text
                case .null: return "NULL"
                default: return value.description
                }
            } })
        }
    }
}
