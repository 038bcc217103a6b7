import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// What a store holds beyond its model, through each kind of step (issue 29 §2), on the one
/// fixture store that has persistent history and derived-attribute triggers (CoreDataPlus
/// `SampleModel2_V1`, whose model exists only in its `Z_MODELCACHE`): history kept and
/// renumbered by inferred steps, truncated as Core Data truncates it when a removed entity had
/// changes, not carried by a mapping step; derived-attribute triggers made for the destination
/// after every step; an app's table kept in place and named where a mapping step leaves it; an
/// app's index named as dropped. Every one of them is in the plan's words.
final class BeyondTheModelTests: FixtureTestCase {
    private struct Subject {
        let path: String
        let bundle: ModelBundle
    }

    /// A copy of the store, with a bundle: V1 (the store's own model), V2 (an attribute added to
    /// Book), V3 (Feedback removed: Page, Writer and Author are renumbered), V4 (V1 again, reached
    /// from V1 by a mapping model).
    private func subject() throws -> Subject {
        let fixture = try XCTUnwrap(
            Fixtures.stores.first { $0.lastPathComponent == "SampleModel2_V1.sqlite" }, "the fixture with history")
        let copy = try copyOfFixture(fixture)
        let store = try PersistentStore.open(at: copy.path)
        let v1 = try XCTUnwrap(try store.cachedModel())
        try store.close()
        var v2 = v1, v3 = v1
        let book = try XCTUnwrap(v2.entities.firstIndex { $0.name == "Book" })
        v2.entities[book].attributes.append(
            AttributeDescription(PropertyDescription(name: "note", isOptional: true), type: .string))
        v3.entities.removeAll { $0.name == "Feedback" }
        for index in v3.configurations.indices { v3.configurations[index].entityNames.removeAll { $0 == "Feedback" } }
        var v4 = v1
        v4.entities[book].attributes.append(
            AttributeDescription(PropertyDescription(name: "subtitle", isOptional: true), type: .string))
        let bundle = ModelBundle(
            name: "SampleModel2",
            versions: [
                .init(name: "V1", model: v1), .init(name: "V2", model: v2),
                .init(name: "V3", model: v3), .init(name: "V4", model: v4),
            ],
            currentVersionName: "V2")
        return Subject(path: copy.path, bundle: bundle)
    }

    private func copyOfFixture(_ store: URL) throws -> URL {
        try Fixtures.copyStore(store, into: try scratchDirectory())
    }

    private func scalar(_ path: String, _ sql: String) throws -> Int {
        try DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: sql) ?? -1 }
    }

    private func triggers(_ path: String) throws -> [String: String] {
        try DatabaseQueue(path: path).read { db in
            Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(
                    db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'trigger'"
                ).map {
                    ($0[0] as String, $0[1] as String)
                })
        }
    }

    private func predictedTriggers(_ model: ManagedObjectModel, path: String) throws -> [String: String] {
        let store = try PersistentStore.open(at: path)
        defer { try? store.close() }
        let derived = DerivedAttributeTriggers(layout: try store.layout(for: model))
        return Dictionary(
            uniqueKeysWithValues: zip(
                derived.derivations.flatMap(\.triggerNames), derived.derivations.flatMap(\.triggers).map(\.sql)))
    }

    private func migrate(_ subject: Subject, to target: String, mappings: [MappingModel] = [], setBased: Bool = true)
        throws -> MigrationPlan
    {
        let plan = try MigrationPlan.make(store: subject.path, bundle: subject.bundle, mappings: mappings, to: target)
        _ = try MigrationRunner.run(
            plan, store: subject.path, options: MigrationOptions(configureManager: { $0.useSetBasedSQL = setBased }),
            keepBackup: false)
        return plan
    }

    func testAnInferredStepKeepsHistoryAndRemakesTheDerivedAttributesTriggers() throws {
        let subject = try subject()
        let changes = try scalar(subject.path, "SELECT count(*) FROM ACHANGE")
        let pageChanges = try scalar(subject.path, "SELECT count(*) FROM ACHANGE WHERE ZENTITY = 4")
        let plan = try migrate(subject, to: "V2")
        XCTAssertTrue(
            plan.beyondModel.contains { $0.hasPrefix("persistent history (1 transaction, \(changes) changes): kept") },
            "\(plan.beyondModel)")
        XCTAssertEqual(try scalar(subject.path, "SELECT count(*) FROM ACHANGE"), changes)
        XCTAssertEqual(
            try scalar(subject.path, "SELECT count(*) FROM ACHANGE WHERE ZENTITY = 4"), pageChanges,
            "no entity was renumbered")
        XCTAssertEqual(
            try scalar(subject.path, "SELECT count(*) FROM Z_PRIMARYKEY WHERE Z_ENT > 16000"), 3,
            "history's Z_PRIMARYKEY rows stay")
        let v2 = try XCTUnwrap(subject.bundle.version(named: "V2")).model
        let expected = try predictedTriggers(v2, path: subject.path)
        XCTAssertEqual(expected.count, 5)
        XCTAssertEqual(
            try triggers(subject.path), expected,
            "the destination's derived-attribute triggers, as Core Data writes them")
        XCTAssertEqual(
            try scalar(
                subject.path,
                "SELECT count(*) FROM ZBOOK b WHERE ZPAGESCOUNT IS NOT (SELECT count(*) FROM ZPAGE p WHERE p.ZBOOK = b.Z_PK)"
            ), 0)
    }

    func testRemovingAnEntityWithHistoryTruncatesItAsCoreDataDoes() throws {
        let subject = try subject()
        let pageChanges = try scalar(subject.path, "SELECT count(*) FROM ACHANGE WHERE ZENTITY = 4")
        XCTAssertGreaterThan(
            try scalar(subject.path, "SELECT count(*) FROM ACHANGE WHERE ZENTITY = 3"), 0,
            "the premise: Feedback has changes")
        // A second transaction after the one that changed Feedback: it survives, renumbered.
        try DatabaseQueue(path: subject.path).write { db in
            try db.execute(sql: "INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZTIMESTAMP) VALUES (2, 16002, 1, 1000)")
            try db.execute(
                sql:
                    "INSERT INTO ACHANGE (Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID) VALUES (16001, 1, 1, 4, 1, 2), (16001, 1, 1, 6, 1, 2)"
            )
        }
        let plan = try migrate(subject, to: "V3")
        XCTAssertTrue(
            plan.beyondModel.contains {
                $0.contains("truncated up to the last transaction that changed a removed entity (Feedback)")
            }, "\(plan.beyondModel)")
        XCTAssertEqual(
            try scalar(subject.path, "SELECT count(*) FROM ATRANSACTION"), 1,
            "transaction 1 changed Feedback and goes; 2 stays")
        let entities = try DatabaseQueue(path: subject.path).read { db in
            try Int.fetchAll(db, sql: "SELECT ZENTITY FROM ACHANGE ORDER BY ZENTITY")
        }
        XCTAssertEqual(
            entities, [3, 5], "Page 4 → 3 and Author 6 → 5 in V3's numbering; \(pageChanges) older changes truncated")
    }

    /// An app's own table with `settings` rows, and an index of its own on ZBOOK.
    private func addAppsOwnTable(_ path: String, settings: [String], then more: (Database) throws -> Void = { _ in })
        throws
    {
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "CREATE TABLE app_settings (key TEXT PRIMARY KEY, value TEXT)")
            for (index, value) in settings.enumerated() {
                try db.execute(sql: "INSERT INTO app_settings VALUES (?, ?)", arguments: ["key\(index)", value])
            }
            try db.execute(sql: "CREATE INDEX app_book_title ON ZBOOK (ZTITLE)")
            try more(db)
        }
    }

    func testAMappingStepNamesWhatItDoesNotCarryAndMakesTheTriggers() throws {
        let subject = try subject()
        try addAppsOwnTable(subject.path, settings: ["dark"]) { db in
            // A page's book found through the BookToBook mapping cannot be a GraphicNovel, which
            // its own mapping migrates: this test is about what surrounds the rows, so it has none.
            for name in [
                "NSCoreDataDATriggerUpdatedAffectedObjectValue", "NSCoreDataDATriggerInsertUpdatedAffectedObjectValue",
            ] {
                db.add(function: DatabaseFunction(name, argumentCount: 5, pure: false) { _ in nil })
            }
            try db.execute(sql: "DELETE FROM ZPAGE WHERE ZBOOK IN (SELECT Z_PK FROM ZBOOK WHERE Z_ENT = 2)")
            try db.execute(sql: "DELETE FROM ZBOOK WHERE Z_ENT = 2")
        }
        let v1 = try XCTUnwrap(subject.bundle.version(named: "V1")),
            v4 = try XCTUnwrap(subject.bundle.version(named: "V4"))
        let mapping = try MappingYAMLReader.read(
            """
            source: V1
            destination: V4
            entityMappings:
            \(v1.model.entities.filter { !$0.isAbstract }.map { "  - {source: \($0.name), destination: \($0.name)}" }.joined(separator: "\n"))
            """, name: "V1ToV4", file: "V1ToV4.mapping.yaml")
        let plan = try migrate(subject, to: "V4", mappings: [mapping])
        let said = plan.beyondModel.joined(separator: "\n")
        XCTAssertTrue(
            said.contains("persistent history (1 transaction, ")
                && said.contains("not carried into the new store of V1 → V4"), said)
        XCTAssertTrue(said.contains("table app_settings (1 row, not the model's): not carried"), said)
        XCTAssertTrue(said.contains("index app_book_title on ZBOOK (not Core Data's): dropped by V1 → V4"), said)
        XCTAssertEqual(
            try triggers(subject.path), try predictedTriggers(v4.model, path: subject.path),
            "a new store gets the destination's triggers")
        XCTAssertEqual(
            try scalar(
                subject.path,
                "SELECT count(*) FROM ZBOOK b WHERE ZPAGESCOUNT IS NOT (SELECT count(*) FROM ZPAGE p WHERE p.ZBOOK = b.Z_PK)"
            ), 0)
        XCTAssertEqual(
            try scalar(subject.path, "SELECT count(*) FROM sqlite_master WHERE name IN ('ACHANGE', 'app_settings')"), 0,
            "as Core Data, and as said")
    }

    func testAnInferredStepKeepsAnAppsTableAndNamesTheIndexItDrops() throws {
        let subject = try subject()
        try addAppsOwnTable(subject.path, settings: ["dark", "large"])
        let plan = try migrate(subject, to: "V2")
        let said = plan.beyondModel.joined(separator: "\n")
        XCTAssertTrue(said.contains("table app_settings (2 rows, not the model's): kept as it is"), said)
        XCTAssertTrue(
            said.contains(
                "index app_book_title on ZBOOK (not Core Data's): dropped by V1 → V2; to keep it, run it again after the migration: CREATE INDEX app_book_title ON ZBOOK (ZTITLE)"
            ), said)
        XCTAssertEqual(try scalar(subject.path, "SELECT count(*) FROM app_settings"), 2)
    }
}
