import Demo
import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore
import Synchronization
import XCTest

/// BookStore 3 → 4 → 5 and Groceries 3 → 4, from the YAML mapping files, with the results the
/// worked examples state, checked with plain SQL.
final class BookStoreMigrationTests: XCTestCase {
    func testBookStore3To4SplitsAuthorsWithTheCustomPolicy() throws {
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        try makeBookStore3(at: path)
        let bundle = try bookStore()
        // An app's own metadata key must survive the migration.
        let writable = try PersistentStore.open(at: path, mode: .readWrite)
        var appMetadata = try writable.metadata()
        appMetadata.values["com.example.lastSync"] = .string("2026-11-01")
        try writable.writeMetadata(appMetadata)
        try writable.close()
        let original = try digest(path)
        let report = try MappingMigration.run(
            store: path, from: try version(bundle, "BookStore 3"), to: try version(bundle, "BookStore 4"),
            mappings: [try DemoResources.mapping("BookStore3To4")],
            options: MigrationOptions(policies: DemoResources.policies, chunkSize: 4))
        let result = try rows(path, "SELECT ztitle, zfirstname, zlastname, zprice FROM zpublication ORDER BY z_pk")
        XCTAssertEqual(
            result.map { $0.map(\.description) },
            [
                ["\"The first book\"", "\"John\"", "\"Doe\"", "20.0"],
                ["\"The second book\"", "\"Jane\"", "\"Doe\"", "21.0"],
                ["\"The third book\"", "\"Bill\"", "\"Smith\"", "22.0"],
                ["\"The fourth book\"", "\"Jack\"", "\"Brown\"", "23.0"],
                ["\"Dialogues\"", "\"Plato\"", "NULL", "24.0"], ["\"Anonymous pamphlet\"", "NULL", "NULL", "1.0"],
            ])
        // Relationships were recreated by the default stage 2: each book keeps its category and pages.
        let links = try rows(
            path,
            """
            SELECT p.ztitle, c.zname, (SELECT count(*) FROM zpage g WHERE g.zbook = p.z_pk)
            FROM zpublication p JOIN zcategory c ON c.z_pk = p.zcategory ORDER BY p.z_pk
            """)
        XCTAssertEqual(
            links.map { $0[1].description },
            ["\"Fiction\"", "\"Science\"", "\"Fiction\"", "\"Science\"", "\"Fiction\"", "\"Science\""])
        XCTAssertEqual(links.map { $0[2].description }, Array(repeating: "2", count: 6))
        XCTAssertEqual(try rows(path, "SELECT count(*) FROM zpage WHERE ztext IS NOT NULL")[0][0], 12.databaseValue)
        // The store now carries BookStore 4's hashes, its UUID, and the source is kept as the backup.
        let migrated = try PersistentStore.open(at: path).metadata()
        XCTAssertEqual(migrated.versionHashes, VersionHash.entityHashes(of: try version(bundle, "BookStore 4").model))
        XCTAssertEqual(
            migrated.versionHashesDigest, VersionHash.versionHashesDigest(of: try version(bundle, "BookStore 4").model))
        XCTAssertEqual(migrated.versionIdentifiers, ["4"])
        XCTAssertEqual(migrated.values["com.example.lastSync"], .string("2026-11-01"))
        XCTAssertEqual(migrated.uuid, appMetadata.uuid)
        XCTAssertEqual(try report.backup.map(digest), original)
        XCTAssertEqual(try PersistentStore.open(at: try XCTUnwrap(report.backup)).metadata().uuid, migrated.uuid)
        XCTAssertEqual(report.rowsAfter["Publication"], 6)
        XCTAssertEqual(try directoryListing(path), ["BookStore.sqlite", "BookStore~.sqlite"])
    }

    /// Step mode's report shows a few rows before → after: the source object each was made from,
    /// and which values the mapping changed (the author split into new first and last names).
    func testAStepReportSamplesRowsBeforeAndAfter() throws {
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        try makeBookStore3(at: path)
        let bundle = try bookStore()
        let reports = Mutex<[StepReport]>([])
        var options = MigrationOptions(policies: DemoResources.policies)
        options.pauseAfterEntityMapping = { report in reports.withLock { $0.append(report) } }
        _ = try MappingMigration.run(
            store: path, from: try version(bundle, "BookStore 3"), to: try version(bundle, "BookStore 4"),
            mappings: [try DemoResources.mapping("BookStore3To4")], options: options)
        let report = try XCTUnwrap(
            reports.withLock { $0 }.first {
                $0.entityMapping == "PublicationToPublication" && $0.stage == .createInstances
            })
        let first = try XCTUnwrap(report.samples.first)
        XCTAssertEqual(first.source, "Publication 1", "BookStore 3 already calls it Publication")
        XCTAssertEqual(first.destination, "Publication 1")
        let byName = Dictionary(uniqueKeysWithValues: first.values.map { ($0.name, $0) })
        XCTAssertEqual(byName["firstName"], .init(name: "firstName", before: nil, after: "\"John\""))
        XCTAssertEqual(byName["firstName"]?.changed, true)
        XCTAssertEqual(byName["title"]?.changed, false, "copied as it was")
        XCTAssertTrue(
            first.sourceOnly.contains { $0.hasPrefix("author \"John") },
            "the source's author, which the policy split, beside the names it made: \(first.sourceOnly)")
        XCTAssertGreaterThan(report.samples.count, 3, "as many rows as a large pane holds")
    }

    /// A value expression that reads another key (Recipes' `totalCost: $source.amount`): the
    /// sample shows what it read, so a presenter sees the source beside the destination.
    func testAStepReportSampleShowsWhatAnExpressionRead() throws {
        let path = try scratchDirectory().appendingPathComponent("Recipes.sqlite").path
        let bundle = try ModelBundle.read(at: DemoResources.recipesBundle)
        let model = try version(bundle, "Version 1.1").model
        let store = try PersistentStore.create(at: path, model: model)
        try DataGenerator(model: model).fill(store, rows: 5)
        try store.close()
        let reports = Mutex<[StepReport]>([])
        var options = MigrationOptions(policies: DemoResources.policies)
        options.pauseAfterEntityMapping = { report in reports.withLock { $0.append(report) } }
        _ = try MappingMigration.run(
            store: path, from: try version(bundle, "Version 1.1"), to: try version(bundle, "Version 2.0"),
            mappings: [try DemoResources.mapping("Recipes1To2")], options: options)
        let report = try XCTUnwrap(reports.withLock { $0 }.first { $0.entityMapping == "IngredientToIngredient" })
        let value = try XCTUnwrap(report.samples.first?.values.first { $0.name == "totalCost" })
        XCTAssertEqual(value.read?.hasPrefix("amount "), true, "what the expression read: \(value)")
        XCTAssertTrue(value.changed)
        XCTAssertFalse(report.samples.first?.sourceOnly.contains { $0.hasPrefix("amount ") } ?? true)
    }

    func testBookStore4To5FillsSynopsisFromTheAssociationHook() throws {
        let directory = try scratchDirectory()
        let path = directory.appendingPathComponent("BookStore.sqlite").path
        try makeBookStore3(at: path)
        let books = try rows(path, "SELECT count(*) FROM zpublication")
        let bundle = try bookStore()
        let options = MigrationOptions(policies: DemoResources.policies, configureManager: BookStoreSynopsis.install)
        _ = try MappingMigration.run(
            store: path, from: try version(bundle, "BookStore 3"), to: try version(bundle, "BookStore 4"),
            mappings: [try DemoResources.mapping("BookStore3To4")], options: options)
        _ = try MappingMigration.run(
            store: path, from: try version(bundle, "BookStore 4"), to: try version(bundle, "BookStore 5"),
            mappings: [try DemoResources.mapping("BookStore4To5")], options: options)
        let result = try rows(path, "SELECT ztitle, zsynopsis, zfirstname FROM zpublication ORDER BY z_pk")
        XCTAssertEqual(result.count.databaseValue, books[0][0], "every book the store held, and no more")
        for row in result { XCTAssertEqual(row[0], row[1]) }
        XCTAssertEqual(result[0][2], "John".databaseValue)
        XCTAssertEqual(
            try directoryListing(path), ["BookStore.sqlite", "BookStore~.sqlite", "BookStore~2.sqlite"],
            "no backup is overwritten")
    }

    /// The association hook written as a value expression (compiled into the set-based insert, or
    /// evaluated per instance on the row-by-row path) and as a Swift closure make the same store.
    func testAssociationHookAsExpressionOrClosureGivesTheSameStore() throws {
        let directory = try scratchDirectory()
        let source = directory.appendingPathComponent("BookStore.sqlite").path
        try makeBookStore3(at: source)
        let bundle = try bookStore()
        _ = try MappingMigration.run(
            store: source, from: try version(bundle, "BookStore 3"), to: try version(bundle, "BookStore 4"),
            mappings: [try DemoResources.mapping("BookStore3To4")],
            options: MigrationOptions(policies: DemoResources.policies))
        let hooks: [(String, @Sendable (MigrationManager) throws -> Void)] = [
            ("compiled", BookStoreSynopsis.install),
            (
                "evaluated",
                { manager in
                    manager.useSetBasedSQL = false; try BookStoreSynopsis.install(on: manager)
                }
            ),
            (
                "closure",
                { manager in
                    manager.didAssociateEntities = ["Publication"]
                    manager.didAssociate = { manager, source, destination, _ in
                        try manager.setDestinationValues(
                            destination,
                            ["synopsis": try manager.sourceObject(try XCTUnwrap(source)).values["title"] ?? .null])
                    }
                }
            ),
        ]
        var stores: [String: [[DatabaseValue]]] = [:]
        for (name, hook) in hooks {
            let path = directory.appendingPathComponent("\(name).sqlite").path
            try FileManager.default.copyItem(atPath: source, toPath: path)
            _ = try MappingMigration.run(
                store: path, from: try version(bundle, "BookStore 4"), to: try version(bundle, "BookStore 5"),
                mappings: [try DemoResources.mapping("BookStore4To5")],
                options: MigrationOptions(configureManager: hook))
            stores[name] = try rows(path, "SELECT * FROM ZPUBLICATION ORDER BY Z_PK")
        }
        XCTAssertEqual(stores["compiled"]?.count, 6)
        XCTAssertEqual(stores["compiled"], stores["evaluated"])
        XCTAssertEqual(stores["compiled"], stores["closure"])
        XCTAssertEqual(
            try rows(
                directory.appendingPathComponent("compiled.sqlite").path,
                "SELECT count(*) FROM ZPUBLICATION WHERE ZSYNOPSIS IS ZTITLE AND ZTITLE IS NOT NULL"),
            [[6.databaseValue]])
    }

    func testGroceries3To4MakesAUnitPerAmount() throws {
        let bundle = try ModelBundle.read(at: DemoResources.groceriesBundle)
        let model3 = try version(bundle, "Model 3"), model4 = try version(bundle, "Model 4")
        let path = try scratchDirectory().appendingPathComponent("Groceries.sqlite").path
        let store = try PersistentStore.create(at: path, model: model3.model)
        try store.writeObjects(StoreLayout(model: model3.model)) { writer in
            for name in ["Apples", "Bread"] { try writer.insert("Item", ["name": .string(name)]) }
            for xyz in ["kg", "loaf", "dozen"] { try writer.insert("Amount", ["xyz": .string(xyz)]) }
            try writer.insert("Amount")
        }
        try store.close()
        _ = try MappingMigration.run(
            store: path, from: model3, to: model4, mappings: [try DemoResources.mapping("Groceries3To4")])
        XCTAssertEqual(
            try rows(path, "SELECT zname FROM zunit ORDER BY z_pk").map { $0[0] },
            ["kg".databaseValue, "loaf".databaseValue, "dozen".databaseValue, .null])
        XCTAssertEqual(
            try rows(path, "SELECT zname, zquantity FROM zitem ORDER BY z_pk").map { $0.map(\.description) },
            [["\"Apples\"", "1"], ["\"Bread\"", "1"]])
        XCTAssertTrue(try rows(path, "SELECT name FROM sqlite_master WHERE name = 'ZAMOUNT'").isEmpty, "Amount is gone")
    }
}
