import Foundation
import MigrationEngine
import ObjectModel
import SQLiteStore

/// Runs a demo: creates the example's oldest store with the text's rows plus generated ones,
/// plans one migration through every version the example stops at, and at each stop does what
/// the worked example does there (its own work, announced) and shows what it shows. The same
/// runner serves the console (each stop's tables go to that step's result pane) and the
/// headless narration.
public struct DemoRunner: Sendable {
    /// What the demo has to say, in order.
    public enum Event: Sendable {
        /// A line of narration.
        case message(String)
        /// Generated rows so far, of the total.
        case generating(done: Int, total: Int)
        /// A query and its result.
        case query(title: String, columns: [String], rows: [[String]])
        /// What the demo itself is about to do to the store, which is not the migration's work.
        case demoWork(String)
        /// Rows the demo's own work has changed so far, of the total.
        case working(done: Int, total: Int)
        /// Why a step needs what it needs, beyond what the plan says.
        case lesson(String)
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

    /// Makes `--dir` and checks a store can be made in it, naming the system's reason when not (a
    /// read-only volume, no permission) before anything is written.
    private func makeFolder() throws {
        var failure: Error?
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch { failure = error }
        if let cause = OpenFailure.cannotCreate(in: directory.path) {
            throw MigrationError(
                .notWritable, "\(storePath) \(cause.problem)",
                fix: cause.fix.replacingOccurrences(of: "give a folder", with: "give --dir a folder"))
        }
        if let failure {
            throw MigrationError(
                .notWritable, "the demo's folder \(directory.path) cannot be made: \(failure.localizedDescription)",
                fix: "give --dir a folder this user can write in")
        }
    }

    /// Creates the starting store: the text's rows, then `rows` generated ones. Shows the
    /// example's opening queries only when `showBefore` (the console shows its own screens).
    public func prepare(showBefore: Bool = true, _ report: (Event) -> Void) throws -> ModelBundle {
        let bundle = try example.bundle()
        guard let start = bundle.version(named: example.startVersion) else {
            throw MigrationError(.notFound, "the \(example.name) bundle has no version \(example.startVersion)")
        }
        try makeFolder()
        guard !FileManager.default.fileExists(atPath: storePath) else {
            throw MigrationError(
                .notWritable, "\(storePath) already exists; the demo never overwrites a store",
                fix: "give an empty --dir, or remove the file")
        }
        try example.makeStore(storePath, start)
        if rows > 0 {
            let store = try PersistentStore.open(at: storePath, mode: .readWrite)
            do {
                try DataGenerator(model: start.model, seed: seed).fill(store, rows: rows) {
                    report(
                        .generating(done: $0, total: rows * start.model.entities.filter { $0.parentName == nil }.count))
                    try cancellation.check()
                }
                try store.close()
            } catch {
                // A store cut off while its rows are made is no demo store: nothing is left of it.
                try? store.close()
                StoreFiles.remove(storePath)
                throw error
            }
        }
        report(
            .message(
                """
                Created \(storePath) at \(start.name) with the text's \
                rows\(rows > 0 ? " and \(rows) generated rows per root entity" : "").
                """
            ))
        if showBefore { for query in example.before { report(try run(query)) } }
        return bundle
    }

    /// The demo's plan: from the store to the last stop, ending a step at every stop. The demo's
    /// own strategy when it has one (a staged migration); else the default, progressive, where it
    /// stops at every stop; otherwise every version is visited (iterative), as the worked example
    /// goes (BookStore stops at version 2, which the progressive route passes over).
    public func plan(bundle: ModelBundle) throws -> MigrationPlan {
        if let strategy = example.strategy { return try plan(bundle: bundle, strategy: try strategy(bundle)) }
        let progressive = try plan(bundle: bundle, strategy: .progressive)
        let reached = Set(progressive.steps.map(\.destination.name))
        return example.stops.allSatisfy({ reached.contains($0.version) })
            ? progressive : try plan(bundle: bundle, strategy: .iterative)
    }

    /// What `chrysalis migrate`'s default route would be, when the demo's plan takes another (nil: the same).
    public func defaultRoute(bundle: ModelBundle) throws -> String? {
        guard example.strategy == nil else { return nil }
        let progressive = try plan(bundle: bundle, strategy: .progressive)
        guard progressive.steps.count != (try plan(bundle: bundle)).steps.count else { return nil }
        return progressive.steps.map { "\($0.source.name) → \($0.destination.name) [\($0.kind.name)]" }.joined(
            separator: ", ")
    }

    private func plan(bundle: ModelBundle, strategy: MigrationStrategy) throws -> MigrationPlan {
        try MigrationPlan.make(
            store: storePath, bundle: bundle, mappings: try example.mappings(), to: example.stops.last?.version,
            strategy: strategy)
    }

    /// Whether `done` is the last step at its version: a staged migration's `didMigrate` that runs
    /// next, at the same version, finishes the stop, which is shown after it.
    public static func endsStop(_ done: CompletedStep, of plan: MigrationPlan) -> Bool {
        guard done.index < plan.steps.count, case .handler = plan.steps[done.index].kind else { return true }
        return plan.steps[done.index].source.name != done.step.destination.name
    }

    /// What a stop adds to the plan's own reasons (a custom policy, a hook), if anything.
    public func lesson(at version: String) -> String? {
        example.stops.first { $0.version == version }?.lesson
    }

    /// At the stop for `version` (if the demo has one): its queries, then the demo's own work,
    /// announced, and what that work did. Runs on the engine's thread between two steps.
    public func arrive(at version: String, _ report: (Event) -> Void) throws {
        guard let stop = example.stops.first(where: { $0.version == version }) else { return }
        for query in stop.queries { report(try run(query)) }
        guard let action = stop.action, let bundle = try? example.bundle(), let reached = bundle.version(named: version)
        else { return }
        report(.demoWork(action.announcement))
        let store = try PersistentStore.open(at: storePath, mode: .readWrite)
        try action.work(store, reached) { report(.working(done: $0, total: $1)) }
        try store.close()
        for query in action.queries { report(try run(query)) }
    }

    /// The options the demos need: their policies and BookStore 5's association hook.
    public func options() -> MigrationOptions {
        MigrationOptions(
            policies: DemoResources.policies, cancellation: cancellation, configureManager: BookStoreSynopsis.install)
    }

    /// Runs one of the example's queries on the store, read-only, through SQLiteStore (the one
    /// module that speaks SQL to a store).
    private func run(_ query: DemoExample.Query) throws -> Event {
        let store = try PersistentStore.open(at: storePath)
        defer { try? store.close() }
        let table = try store.withReadConnection { try $0.table(SQLStatement(query.sql)) }
        // The header comes with the rows: a query that finds none shows none.
        return .query(
            title: query.title, columns: table.rows.isEmpty ? [] : table.columns,
            rows: table.rows.map { $0.map(Self.cell) })
    }

    /// A value as the demo prints it in a table: text as it is, `NULL`, numbers as Swift writes
    /// them, bytes as their count.
    private static func cell(_ value: SQLValue) -> String {
        switch value {
        case .text(let text): return text
        case .undecodableText(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .null: return "NULL"
        case .integer(let number): return String(number)
        case .real(let number): return String(number)
        case .blob(let data): return "Data(\(data.description))"
        }
    }
}
