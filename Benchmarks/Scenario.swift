import Demo
import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore

/// One benchmark: a source store, the Chrysalis migration of it, and hand-written SQL that
/// produces the same destination — the physical limit Chrysalis is measured against.
struct Scenario: Sendable {
    let name: String
    let summary: String
    /// Creates the source store at the path with the given rows per root entity.
    let prepare: @Sendable (String, Int) throws -> Void
    /// Migrates the store at the path with Chrysalis.
    let chrysalis: @Sendable (String) throws -> Void
    /// Does the same work on the store at the path with hand-written SQL.
    let baseline: @Sendable (String) throws -> Void

    static let all: [Scenario] = [addAttribute]

    /// Scenario 1: a lightweight step that adds an optional attribute (BookStore → BookStore 2).
    static let addAttribute = Scenario(
        name: "add-attribute", summary: "lightweight: Book.author added (BookStore → BookStore 2)",
        prepare: { try makeBookStore(at: $0, version: "BookStore", rows: $1) },
        chrysalis: { try migrateBookStore($0, to: "BookStore 2") },
        baseline: { path in
            try DatabaseQueue(path: path).write { db in
                try db.execute(sql: #"ALTER TABLE "ZBOOK" ADD COLUMN "ZAUTHOR" VARCHAR"#)
            }
        })

    static func makeBookStore(at path: String, version: String, rows: Int) throws {
        let bundle = try ModelBundle.read(at: DemoResources.bookStoreBundle)
        guard let model = bundle.version(named: version)?.model else { throw BenchError("the BookStore bundle has no version \(version)") }
        let store = try PersistentStore.create(at: path, model: model)
        try DataGenerator(model: model).fill(store, rows: rows)
        try store.close()
    }

    static func migrateBookStore(_ path: String, to version: String, mappings: [MappingModel] = []) throws {
        let bundle = try ModelBundle.read(at: DemoResources.bookStoreBundle)
        let plan = try MigrationPlan.make(store: path, bundle: bundle, mappings: mappings, to: version)
        _ = try MigrationRunner.run(plan, store: path, options: MigrationOptions(policies: DemoResources.policies), keepBackup: false)
    }
}

/// A benchmark that cannot run or whose two destinations differ.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
