import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// Every lightweight chain in the fixtures: a copy of the older real store, migrated in place,
/// must look like the newer real store — tables, columns, indexes, Z_PRIMARYKEY, hashes — with
/// every row kept.
final class RealChainTests: FixtureTestCase {
    /// Differences a Chrysalis-migrated store is expected to have, with the reason.
    static let justified: Set<String> = [
        "Z_MODELCACHE"  // dropped: it would describe the old model (see the issue note)
    ]

    private func migrateAndCompare(
        bundle bundlePath: String, from: String, to: String, older: String, newer: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let bundle = try ModelBundle.read(at: Fixtures.root.appendingPathComponent(bundlePath))
        let olderStore = try XCTUnwrap(Fixtures.files { $0.path.hasSuffix(older) }.first, older)
        let newerStore = try XCTUnwrap(Fixtures.files { $0.path.hasSuffix(newer) }.first, newer)
        let path = try Fixtures.copyStore(olderStore, into: try scratchDirectory()).path
        let rowsBefore = try PersistentStore.open(at: path).rowCounts()
        _ = try InPlaceMigration.run(store: path, from: try version(bundle, from), to: try version(bundle, to))
        let migrated = try SchemaSnapshot.read(path)
        let real = try SchemaSnapshot.read(try Fixtures.copyStore(newerStore, into: try scratchDirectory()).path)
        let tables = Set(real.tables.keys).subtracting(Self.justified)
        XCTAssertEqual(Set(migrated.tables.keys), tables, "tables", file: file, line: line)
        for table in tables {
            XCTAssertEqual(migrated.tables[table], real.tables[table], "columns of \(table)", file: file, line: line)
        }
        XCTAssertEqual(migrated.indexes, real.indexes, "indexes", file: file, line: line)
        // Core Data left the pre-rename name in SampleModel_V2's Z_PRIMARYKEY (coredata-formats.md §d); Chrysalis writes the current one.
        let staleNames = ["3 ExpensiveSportCar 2": "3 LuxuryCar 2"]
        XCTAssertEqual(
            migrated.primaryKeys, real.primaryKeys.map { staleNames[$0] ?? $0 }, "Z_PRIMARYKEY", file: file, line: line)
        let metadata = try PersistentStore.open(at: path).metadata()
        let realMetadata = try PersistentStore.open(at: newerStore.path).metadata()
        XCTAssertEqual(metadata.versionHashes, realMetadata.versionHashes, "entity hashes", file: file, line: line)
        XCTAssertEqual(
            try PersistentStore.open(at: path).rowCounts().values.reduce(0, +), rowsBefore.values.reduce(0, +),
            "rows kept", file: file, line: line)
    }

    func testJeffreyBergierRenameChain() throws {
        let versions = ["v1.0.0", "v1.1.0", "v1.1.2", "v1.2.0", "v2.0.0"]
        for (older, newer) in zip(versions, versions.dropFirst()) {
            try migrateAndCompare(
                bundle: "jeffreybergier-CoreDataMigrationTests/CoreDataMigration/CoreDataMigration/Model.xcdatamodeld",
                from: older, to: newer, older: "Example_\(older).sqlite", newer: "Example_\(newer).sqlite")
        }
    }

    /// This app renames its one attribute in every version, each time pointing the renaming
    /// identifier at the previous version's *name*; Core Data pairs identifiers with identifiers
    /// (an unset one being the name), so only the first rename pairs: v1.1.0's identifier is
    /// `v1_0_0_name`, which v1.1.2's `v1_1_0_name` does not match. Apple's guide asks for the
    /// original name in every later version for this reason ("canonical name"). Chrysalis
    /// follows Core Data: the value survives v1.0.0 → v1.1.0, and is dropped by any step that
    /// reaches past it, straight or step by step.
    func testJeffreyBergierRenamesPairAsCoreDataPairsThem() throws {
        let bundle = try ModelBundle.read(
            at: Fixtures.root.appendingPathComponent(
                "jeffreybergier-CoreDataMigrationTests/CoreDataMigration/CoreDataMigration/Model.xcdatamodeld"))
        let store = try XCTUnwrap(Fixtures.files { $0.path.hasSuffix("Example_v1.0.0.sqlite") }.first)
        func values(_ path: String, _ column: String) throws -> [String?] {
            try DatabaseQueue(path: path).read {
                try String?.fetchAll($0, sql: "SELECT \(column) FROM ZBASICENTITY ORDER BY Z_PK")
            }
        }
        let path = try Fixtures.copyStore(store, into: try scratchDirectory()).path
        let before = try values(path, "ZV1_0_0_NAME")
        XCTAssertFalse(before.isEmpty)
        XCTAssertFalse(before.contains(nil))
        _ = try InPlaceMigration.run(
            store: path, from: try version(bundle, "v1.0.0"), to: try version(bundle, "v1.1.0"))
        XCTAssertEqual(try values(path, "ZV1_1_0_NAME"), before, "v1.1.0's identifier is v1.0.0's name")
        _ = try InPlaceMigration.run(
            store: path, from: try version(bundle, "v1.1.0"), to: try version(bundle, "v1.1.2"))
        XCTAssertEqual(
            try values(path, "ZV1_1_2_NAME"), before.map { _ in nil },
            "v1.1.2's identifier v1_1_0_name pairs with no identifier of v1.1.0")
        let straight = try Fixtures.copyStore(store, into: try scratchDirectory()).path
        let plan = try MigrationPlan.make(store: straight, bundle: bundle)
        XCTAssertEqual(plan.steps.map(\.destination.name), ["v2.0.0"], "one step, as Core Data's automatic migration")
        XCTAssertTrue(
            plan.steps[0].findings.contains(
                "data dropped: BasicEntity.v1_0_0_name removed (\(before.count) row\(before.count == 1 ? "" : "s") with a value)"
            ),
            "\(plan.steps[0].findings)")
        _ = try MigrationRunner.run(plan, store: straight)
        XCTAssertEqual(try values(straight, "ZV2_0_0_NAME"), before.map { _ in nil })
    }

    func testCoreDataPlusLuxuryCarRename() throws {
        try migrateAndCompare(
            bundle: "CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld", from: "SampleModel",
            to: "SampleModel2",
            older: "SampleModel_V1.sqlite", newer: "SampleModel_V2.sqlite")
    }

    func testWiboscoRevisedRename() throws {
        try migrateAndCompare(
            bundle:
                "wibosco-CoreDataMigrationRevised-Example/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld",
            from: "CoreDataMigration_Example", to: "CoreDataMigration_Example 2",
            older:
                "MigrationRevised-Example/CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_1.sqlite",
            newer:
                "MigrationRevised-Example/CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_2.sqlite"
        )
    }

    func testWiboscoAddAttributeStep() throws {
        try migrateAndCompare(
            bundle:
                "wibosco-CoreDataMigration-Example/CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld",
            from: "CoreDataMigration_Example 3", to: "CoreDataMigration_Example 4",
            older:
                "CoreDataMigration-Example/CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_3.sqlite",
            newer:
                "CoreDataMigration-Example/CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_WAL.sqlite"
        )
    }
}
