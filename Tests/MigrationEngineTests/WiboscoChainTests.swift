import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// The wibosco example chains, each step from the older real store, with the real mapping models
/// where the project had them, compared with the newer real store Core Data wrote.
final class WiboscoChainTests: FixtureTestCase {
    /// The original project's `Post2ToPost3MigrationPolicy` (its code is not in the fixtures; this
    /// does what its stores show): every post gets a Color holding its old hex string.
    struct ColorPolicy: EntityMigrationPolicy {
        func createDestinationInstances(
            forSource source: ObjectID, in mapping: EntityMapping, manager: MigrationManager
        ) throws {
            guard let post = try manager.createDefaultDestinationInstance(forSource: source, in: mapping) else {
                return
            }
            let hex = try manager.sourceObject(source).values["hexColor"] ?? .null
            let color = try manager.insertDestination("Color", ["hex": hex, "colorID": .string(UUID().uuidString)])
            try manager.relateDestination(post, "color", to: [color])
        }
    }

    /// The revised project's policy of the same name: a post's `content` becomes its first Section.
    struct SectionPolicy: EntityMigrationPolicy {
        func createDestinationInstances(
            forSource source: ObjectID, in mapping: EntityMapping, manager: MigrationManager
        ) throws {
            guard let post = try manager.createDefaultDestinationInstance(forSource: source, in: mapping) else {
                return
            }
            let content: String
            if case .string(let text)? = try manager.sourceObject(source).values["content"] {
                content = text
            } else {
                content = ""
            }
            let section = try manager.insertDestination(
                "Section",
                ["body": .string(content), "title": .string(String(content.prefix(4)) + "..."), "index": .integer(0)])
            try manager.relateDestination(post, "sections", to: [section])
        }
    }

    private func chain(_ project: String, steps: [(from: Int, mappings: [String])], policies: PolicyRegistry) throws {
        let root = Fixtures.root.appendingPathComponent(project)
        let bundle = try ModelBundle.read(
            at: root.appendingPathComponent(
                "CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld"))
        let stores = root.appendingPathComponent("CoreDataMigration-ExampleTests/Resources/SQLite")
        func store(_ version: Int) -> URL {
            let name =
                version == 4 ? "CoreDataMigration_Example_WAL.sqlite" : "CoreDataMigration_Example_\(version).sqlite"
            return stores.appendingPathComponent(name)
        }
        for step in steps {
            // Every step is checked against the real store Core Data made at its target: a missing
            // fixture is a failure, never a step passed over.
            let missing = [step.from, step.from + 1].map(store).filter {
                !FileManager.default.fileExists(atPath: $0.path)
            }
            guard missing.isEmpty else {
                XCTFail("\(project) step \(step.from): the fixture is missing: \(missing.map(\.path))")
                continue
            }
            let path = try Fixtures.copyStore(store(step.from), into: try scratchDirectory()).path
            let rowsBefore = try PersistentStore.open(at: path).rowCounts()
            let mappings = try step.mappings.map { try XCMappingReader.read(at: root.appendingPathComponent($0)) }
            let target = step.from + 1 == 1 ? "CoreDataMigration_Example" : "CoreDataMigration_Example \(step.from + 1)"
            let plan = try MigrationPlan.make(store: path, bundle: bundle, mappings: mappings, to: target)
            XCTAssertEqual(plan.steps.count, 1)
            _ = try MigrationRunner.run(plan, store: path, options: MigrationOptions(policies: policies))
            let real = try SchemaSnapshot.read(
                try Fixtures.copyStore(store(step.from + 1), into: try scratchDirectory()).path)
            let migrated = try SchemaSnapshot.read(path)
            XCTAssertEqual(
                migrated.tables, real.tables.filter { $0.key != "Z_MODELCACHE" }, "\(project) step \(step.from)")
            XCTAssertEqual(migrated.indexes, real.indexes, "\(project) step \(step.from)")
            XCTAssertEqual(migrated.primaryKeys, real.primaryKeys, "\(project) step \(step.from)")
            XCTAssertEqual(
                try PersistentStore.open(at: path).metadata().versionHashes,
                try PersistentStore.open(at: store(step.from + 1).path).metadata().versionHashes)
            XCTAssertEqual(
                try PersistentStore.open(at: path).rowCounts()["Post"], rowsBefore["Post"], "every post kept")
        }
    }

    private func registry(_ make: @escaping @Sendable () -> EntityMigrationPolicy) -> PolicyRegistry {
        var policies = PolicyRegistry()
        policies.register("CoreDataMigration_Example.Post2ToPost3MigrationPolicy", make)
        return policies
    }

    func testOriginalChain() throws {
        try chain(
            "wibosco-CoreDataMigration-Example",
            steps: [
                (1, ["CoreDataMigration-Example/CoreData/Migration/Mappings/Migration1to2.xcmappingmodel"]),
                (2, ["CoreDataMigration-Example/CoreData/Migration/Mappings/Migration2to3.xcmappingmodel"]),
                (3, []),
            ], policies: registry { ColorPolicy() })
    }

    func testRevisedChain() throws {
        try chain(
            "wibosco-CoreDataMigrationRevised-Example",
            steps: [
                (1, []),
                (2, ["CoreDataMigration-Example/CoreData/Migration/Mappings/Migration2to3ModelMapping.xcmappingmodel"]),
            ], policies: registry { SectionPolicy() })
    }

    func testOriginalColorsCarryTheOldHexStrings() throws {
        let root = Fixtures.root.appendingPathComponent("wibosco-CoreDataMigration-Example")
        let bundle = try ModelBundle.read(
            at: root.appendingPathComponent(
                "CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld"))
        let path = try Fixtures.copyStore(
            root.appendingPathComponent(
                "CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_2.sqlite"),
            into: try scratchDirectory()
        ).path
        let hexes = try DatabaseQueue(path: path).read {
            try String.fetchAll($0, sql: "SELECT ZHEXCOLOR FROM ZPOST ORDER BY Z_PK")
        }
        var policies = PolicyRegistry()
        policies.register("Post2ToPost3MigrationPolicy") { ColorPolicy() }
        let mapping = try XCMappingReader.read(
            at: root.appendingPathComponent(
                "CoreDataMigration-Example/CoreData/Migration/Mappings/Migration2to3.xcmappingmodel"))
        _ = try MigrationRunner.run(
            try MigrationPlan.make(store: path, bundle: bundle, mappings: [mapping], to: "CoreDataMigration_Example 3"),
            store: path, options: MigrationOptions(policies: policies))
        let migrated = try DatabaseQueue(path: path).read {
            try String.fetchAll(
                $0, sql: "SELECT c.ZHEX FROM ZPOST p JOIN ZCOLOR c ON c.Z_PK = p.ZCOLOR ORDER BY p.Z_PK")
        }
        XCTAssertEqual(migrated, hexes)
    }
}
