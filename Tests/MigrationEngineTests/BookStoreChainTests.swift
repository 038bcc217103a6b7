import Demo
import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// BookStore v1 → v2 → v3 in place, and v1 straight to v5 through the planner (lightweight,
/// lightweight, mapping, mapping), with the results of worked-examples §1.
final class BookStoreChainTests: XCTestCase {
    private func makeBookStore1(at path: String) throws {
        let model = try version(try bookStore(), "BookStore").model
        let store = try PersistentStore.create(at: path, model: model)
        try store.writeObjects(StoreLayout(model: model)) { writer in
            let category = try writer.insert("Category", ["name": .string("Novels")])
            for (title, price) in [
                ("The first book", 10.0), ("The second book", 15.0), ("The third book", 10.0),
                ("The fourth book", 12.0),
            ] {
                let book = try writer.insert("Book", ["title": .string(title), "price": .double(price)])
                try writer.relate(book, "category", to: [category])
                try writer.relate(
                    book, "pages",
                    to: try (1...3).map { try writer.insert("Page", ["text": .string("\(title) \($0)")]) })
            }
        }
        try store.close()
    }

    func testVersion1To2To3InPlace() throws {
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        try makeBookStore1(at: path)
        let bundle = try bookStore()
        _ = try InPlaceMigration.run(
            store: path, from: try version(bundle, "BookStore"), to: try version(bundle, "BookStore 2"))
        let schema = try SchemaSnapshot.read(path)
        XCTAssertEqual(
            schema.tables["ZBOOK"],
            [
                "Z_PK": "INTEGER", "Z_ENT": "INTEGER", "Z_OPT": "INTEGER", "ZAUTHOR": "VARCHAR",
                "ZCATEGORY": "INTEGER", "ZPRICE": "FLOAT", "ZTITLE": "VARCHAR",
            ])
        XCTAssertTrue(schema.indexes.contains { $0.name == "ZBOOK_ZCATEGORY_INDEX" })
        XCTAssertEqual(
            try rows(path, "SELECT ztitle, zprice, zauthor FROM zbook ORDER BY z_pk").map { $0.map(\.description) },
            [
                ["\"The first book\"", "10.0", "NULL"], ["\"The second book\"", "15.0", "NULL"],
                ["\"The third book\"", "10.0", "NULL"], ["\"The fourth book\"", "12.0", "NULL"],
            ])
        _ = try InPlaceMigration.run(
            store: path, from: try version(bundle, "BookStore 2"), to: try version(bundle, "BookStore 3"))
        let renamed = try SchemaSnapshot.read(path)
        XCTAssertNil(renamed.tables["ZBOOK"])
        XCTAssertEqual(try rows(path, "SELECT count(*) FROM zpublication")[0][0], 4.databaseValue)
        XCTAssertEqual(
            try rows(path, "SELECT count(*) FROM zpage p JOIN zpublication b ON b.z_pk = p.zbook")[0][0],
            12.databaseValue)
        // The in-place result has exactly the layout of a fresh BookStore 3 store.
        let fresh = try scratchDirectory().appendingPathComponent("Fresh.sqlite").path
        try PersistentStore.create(at: fresh, model: try version(bundle, "BookStore 3").model).close()
        let expected = try SchemaSnapshot.read(fresh)
        XCTAssertEqual(renamed.tables.filter { $0.key != "Z_MODELCACHE" }, expected.tables)
        XCTAssertEqual(renamed.indexes, expected.indexes)
        XCTAssertEqual(renamed.primaryKeys, expected.primaryKeys)
    }

    func testVersion1ToCurrentProgressively() throws {
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        try makeBookStore1(at: path)
        let bundle = try bookStore()
        let mappings = [try DemoResources.mapping("BookStore3To4"), try DemoResources.mapping("BookStore4To5")]
        let plan = try MigrationPlan.make(store: path, bundle: bundle, mappings: mappings)
        XCTAssertEqual(plan.storeVersion, "BookStore")
        XCTAssertEqual(plan.targetVersion, "BookStore 5")
        // The default, progressive route: one inferred step across the versions before the first mapping model.
        XCTAssertEqual(plan.steps.map(\.kind.name), ["lightweight", "mapping", "mapping"])
        XCTAssertEqual(plan.steps.map(\.destination.name), ["BookStore 3", "BookStore 4", "BookStore 5"])
        XCTAssertEqual(
            plan.steps[0].reason,
            "progressive: inferred straight to BookStore 3, where the next mapping model starts, across 1 version in between"
        )
        XCTAssertTrue(
            plan.steps[0].findings.contains("rename: entity Book renamed to Publication"), "\(plan.steps[0].findings)")
        XCTAssertFalse(
            plan.steps[0].findings.contains { $0.hasPrefix("rewrites whole tables") },
            "adding an attribute and renaming a table alter it in place")
        XCTAssertTrue(
            plan.steps[1].findings.contains(
                "carried: Publication.author removed, not in BookStore 4: PublicationToPublication's policy PublicationToPublicationMigrationPolicy decides what becomes of it"
            ),
            "\(plan.steps[1].findings)")
        let log = ProgressLog()
        let report = try MigrationRunner.run(
            plan, store: path,
            options: MigrationOptions(policies: DemoResources.policies, configureManager: BookStoreSynopsis.install))
        XCTAssertEqual(report.steps.map(\.destinationVersion), ["BookStore 3", "BookStore 4", "BookStore 5"])
        XCTAssertEqual(
            try rows(path, "SELECT ztitle, zsynopsis, zprice FROM zpublication ORDER BY z_pk").map {
                $0.map(\.description)
            },
            [
                ["\"The first book\"", "\"The first book\"", "10.0"],
                ["\"The second book\"", "\"The second book\"", "15.0"],
                ["\"The third book\"", "\"The third book\"", "10.0"],
                ["\"The fourth book\"", "\"The fourth book\"", "12.0"],
            ])
        XCTAssertEqual(
            try PersistentStore.open(at: path).metadata().versionHashes,
            VersionHash.entityHashes(of: try version(bundle, "BookStore 5").model))
        XCTAssertEqual(
            try directoryListing(path), ["BookStore.sqlite", "BookStore~.sqlite"], "only the original is kept")
        XCTAssertEqual(
            try PersistentStore.open(at: try XCTUnwrap(report.backup)).metadata().versionHashes,
            VersionHash.entityHashes(of: try version(bundle, "BookStore").model))
        let fractions = log.values.map(\.fraction)
        XCTAssertEqual(fractions, fractions.sorted(), "progress never goes back across steps")
        XCTAssertEqual(fractions.filter { $0 == 1.0 }.count, 1)
        XCTAssertEqual(Set(log.values.map(\.step)), [1, 2, 3])
        // Opening with automatic migration: already current, so nothing to do and the store opens.
        XCTAssertNoThrow(try AutomaticMigration.openStore(at: path, bundle: bundle, mappings: mappings).close())
        XCTAssertTrue(try MigrationPlan.make(store: path, bundle: bundle, mappings: mappings).steps.isEmpty)
    }

    func testAutomaticMigrationOpensAnOldStoreAtTheCurrentVersion() throws {
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        try makeBookStore1(at: path)
        let bundle = try bookStore()
        let mappings = [try DemoResources.mapping("BookStore3To4"), try DemoResources.mapping("BookStore4To5")]
        // Core Data's automatic migration takes no chain: no mapping model is for BookStore → BookStore 5, so it infers one step.
        let automatic = try MigrationPlan.make(store: path, bundle: bundle, mappings: mappings, strategy: .automatic)
        XCTAssertEqual(
            automatic.steps.map { "\($0.source.name) → \($0.destination.name) \($0.kind.name)" },
            ["BookStore → BookStore 5 lightweight"])
        // An app that chains its mapping models says so, and its policies run.
        let store = try AutomaticMigration.openStore(
            at: path, bundle: bundle, mappings: mappings, strategy: .progressive,
            options: MigrationOptions(policies: DemoResources.policies))
        XCTAssertEqual(try store.metadata().versionHashes, VersionHash.entityHashes(of: bundle.current.model))
        XCTAssertEqual(
            try store.readObjects(try store.layout(for: bundle.current.model)) { try $0.count(of: "Publication") }, 4)
    }
}
