import CXattr
import Demo
import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// What an app put in the store besides its data (triggers on the tool's own bookkeeping tables,
/// views) neither fires on the migration's own writes nor goes without a word.
final class AppObjectsTests: XCTestCase {
    private func bundle(
        _ bodies: [String] = [
            #"<entity name="Note"><attribute name="title" optional="YES" attributeType="String"/><attribute name="body" optional="YES" attributeType="String"/></entity>"#,
            #"<entity name="Note"><attribute name="title" optional="YES" attributeType="String"/></entity>"#,
        ]
    ) throws -> ModelBundle {
        let versions = try bodies.enumerated().map { index, body in
            ModelBundle.Version(
                name: "V\(index + 1)",
                model: try ModelXMLReader.read(
                    Data(
                        """
                        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="">\(body)</model>
                        """.utf8), file: "V\(index + 1)"))
        }
        return ModelBundle(name: "Notes", versions: versions, currentVersionName: "V\(bodies.count)")
    }

    private func store(_ sql: String, bundle: ModelBundle? = nil) throws -> (String, ModelBundle) {
        let bundle = try bundle ?? self.bundle()
        let path = try scratchDirectory().appendingPathComponent("Notes.sqlite").path
        let store = try PersistentStore.create(at: path, model: bundle.versions[0].model)
        try DataGenerator(model: bundle.versions[0].model, seed: 3).fill(store, rows: 50)
        try store.close()
        try DatabaseQueue(path: path).write { try $0.execute(sql: sql) }
        return (path, bundle)
    }

    /// A trigger on `Z_METADATA` fired when the step recorded its model and emptied a table,
    /// while the step said every row was kept.
    func testATriggerOnTheToolsOwnTablesNeverFiresAndIsKept() throws {
        let (path, bundle) = try store(
            "CREATE TRIGGER wipe AFTER UPDATE ON Z_METADATA BEGIN DELETE FROM ZNOTE; END; CREATE TRIGGER stamp AFTER UPDATE ON Z_PRIMARYKEY BEGIN DELETE FROM ZNOTE; END"
        )
        let plan = try MigrationPlan.make(store: path, bundle: bundle)
        XCTAssertTrue(
            plan.beyondModel.contains {
                $0.hasPrefix("trigger wipe on Z_METADATA (not Core Data's): kept; set aside while each step writes")
            },
            "\(plan.beyondModel)")
        _ = try MigrationRunner.run(plan, store: path)
        try DatabaseQueue(path: path).read { db in
            XCTAssertEqual(
                try Int.fetchOne(db, sql: "SELECT count(*) FROM ZNOTE"), 50,
                "no row deleted by a trigger the migration's writes fired")
            XCTAssertEqual(
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name"),
                ["stamp", "wipe"], "kept")
        }
    }

    /// A view over a column the step removes: refused with its name and SQL, the store as it was
    /// (SQLite's own refusal of the ALTER TABLE was raw text).
    func testAViewNamingWhatAStepRemovesStopsTheStepWithItsName() throws {
        let (path, bundle) = try store("CREATE VIEW bodies AS SELECT ZBODY FROM ZNOTE")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let plan = try MigrationPlan.make(store: path, bundle: bundle)
        XCTAssertTrue(
            plan.beyondModel.contains { $0.hasPrefix("view bodies (not Core Data's): kept") }, "\(plan.beyondModel)")
        // `plan` foresees it, rehearsing the step on the store's schema without its rows.
        XCTAssertThrowsError(try plan.requireViewsKept(store: path)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("the view bodies, not Core Data's, names what V1 → V2 removes"), text)
            XCTAssertTrue(text.contains("the step would stop there and roll back"), text)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before, "the rehearsal touches nothing")
        XCTAssertThrowsError(try MigrationRunner.run(plan, store: path)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("the view bodies, not Core Data's, names what V1 → V2 removes"), text)
            XCTAssertTrue(
                text.contains("DROP VIEW bodies") && text.contains("CREATE VIEW bodies AS SELECT ZBODY FROM ZNOTE"),
                text)
            XCTAssertTrue(text.contains("the store is as it was, at V1"), text)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
        // A view over what stays is kept.
        try DatabaseQueue(path: path).write {
            try $0.execute(sql: "DROP VIEW bodies; CREATE VIEW titles AS SELECT ZTITLE FROM ZNOTE")
        }
        XCTAssertNoThrow(try MigrationPlan.make(store: path, bundle: bundle).requireViewsKept(store: path))
        _ = try MigrationRunner.run(try MigrationPlan.make(store: path, bundle: bundle), store: path)
        XCTAssertEqual(
            try DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM titles") }, 50)
    }

    /// A view over a table a step renames (an entity renamed), and a view over what the second
    /// step of two removes: each foreseen before the first write, and `migrate` refuses with the
    /// store as it was (before, the first step ran and was undone, or the step stopped at run time).
    func testAViewALaterStepOrARenameWouldBreakIsForeseenBeforeAnyStep() throws {
        let title = #"<attribute name="title" optional="YES" attributeType="String"/>"#
        let renamed = try bundle([
            #"<entity name="Note">\#(title)</entity>"#,
            #"<entity name="Memo" elementID="Note">\#(title)</entity>"#,
        ])
        let (path, bundle) = try store("CREATE VIEW titles AS SELECT ZTITLE FROM ZNOTE", bundle: renamed)
        XCTAssertThrowsError(try MigrationPlan.make(store: path, bundle: bundle).requireViewsKept(store: path)) {
            XCTAssertTrue(
                "\($0)".contains("the view titles, not Core Data's, names what V1 → V2 removes or renames"), "\($0)")
        }
        let body = #"<attribute name="body" optional="YES" attributeType="String"/>"#
        let twoSteps = try self.bundle([
            #"<entity name="Note">\#(title)\#(body)</entity>"#,
            #"<entity name="Note">\#(title)\#(body)<attribute name="tag" optional="YES" attributeType="String"/></entity>"#,
            #"<entity name="Note">\#(title)<attribute name="tag" optional="YES" attributeType="String"/></entity>"#,
        ])
        let (second, secondBundle) = try store("CREATE VIEW bodies AS SELECT ZBODY FROM ZNOTE", bundle: twoSteps)
        let before = try Data(contentsOf: URL(fileURLWithPath: second))
        let plan = try MigrationPlan.make(store: second, bundle: secondBundle, strategy: .iterative)
        XCTAssertEqual(plan.steps.count, 2)
        XCTAssertThrowsError(try MigrationRunner.run(plan, store: second)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("names what V2 → V3 removes"), text)
            XCTAssertTrue(text.contains("nothing was changed"), "no step ran to be undone: \(text)")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: second)), before)
    }

    /// The two header fields SQLite keeps for an app (`user_version`, `application_id`), and an
    /// extended attribute it keeps on the file, survive every kind of step: in place they are in
    /// the same file; a mapping step's new file gets them, and so does the backup (before: a
    /// mapping step's new file had no extended attribute).
    func testAnAppsHeaderFieldsAndExtendedAttributesSurviveEveryKindOfStep() throws {
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        let bundle = try bookStore()
        let model = try XCTUnwrap(bundle.version(named: "BookStore")).model
        let store = try PersistentStore.create(at: path, model: model)
        try DataGenerator(model: model).fill(store, rows: 20)
        try store.close()
        try DatabaseQueue(path: path).writeWithoutTransaction {
            try $0.execute(sql: "PRAGMA user_version = 42; PRAGMA application_id = 1234567")
        }
        let tag = Array("backed-up:2026".utf8)
        try EndToEnd.require(
            setxattr(path, "user.app.tag", tag, tag.count, 0) == 0, "the file system keeps no extended attributes")
        let plan = try MigrationPlan.make(
            store: path, bundle: bundle,
            mappings: [try DemoResources.mapping("BookStore3To4"), try DemoResources.mapping("BookStore4To5")],
            strategy: .iterative)
        XCTAssertTrue(
            plan.steps.contains { if case .mapping = $0.kind { true } else { false } },
            "the premise: a mapping step among them")
        _ = try MigrationRunner.run(
            plan, store: path,
            options: MigrationOptions(
                policies: DemoResources.policies, configureManager: { try BookStoreSynopsis.install(on: $0) }))
        try DatabaseQueue(path: path).read { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA user_version"), 42)
            XCTAssertEqual(try Int.fetchOne(db, sql: "PRAGMA application_id"), 1_234_567)
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let backups = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix("~.sqlite") }
        XCTAssertEqual(backups.count, 1, "the premise: a backup was kept")
        for file in [path] + backups.map({ folder + "/" + $0 }) {
            var value = [UInt8](repeating: 0, count: 64)
            let length = getxattr(file, "user.app.tag", &value, value.count)
            XCTAssertEqual(length >= 0 ? Array(value.prefix(length)) : [], tag, file)
        }
    }

    /// A derivation Chrysalis writes no SQL for (`lowercase:(title)`): an in-place step that leaves
    /// it as it was keeps the triggers Core Data made for it, as the store had them, and says
    /// nothing; a step that changes it leaves it without triggers, and plan says so, naming the
    /// attribute (before: a plain add-column step dropped the triggers without a word).
    func testADerivationWhoseSQLIsNotWrittenKeepsItsTriggersOrIsNamed() throws {
        let title = #"<attribute name="title" optional="YES" attributeType="String"/>"#
        let bodies = [
            #"<entity name="Note">\#(title)<attribute name="searchTitle" optional="YES" attributeType="String" derived="YES" derivationExpression="lowercase:(title)"/></entity>"#,
            #"<entity name="Note">\#(title)<attribute name="body" optional="YES" attributeType="String"/><attribute name="searchTitle" optional="YES" attributeType="String" derived="YES" derivationExpression="lowercase:(title)"/></entity>"#,
            #"<entity name="Note">\#(title)<attribute name="body" optional="YES" attributeType="String"/><attribute name="searchTitle" optional="YES" attributeType="String" derived="YES" derivationExpression="uppercase:(title)"/></entity>"#,
        ]
        let versions = try bodies.enumerated().map { index, body in
            ModelBundle.Version(
                name: "V\(index + 1)",
                model: try ModelXMLReader.read(
                    Data(
                        """
                        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="">\(body)</model>
                        """.utf8), file: "V\(index + 1)"))
        }
        let path = try scratchDirectory().appendingPathComponent("Notes.sqlite").path
        let store = try PersistentStore.create(at: path, model: versions[0].model)
        try DataGenerator(model: versions[0].model, seed: 3).fill(store, rows: 5)
        try store.close()
        // Triggers as Core Data names them (`Z_DA_<table>_<Entity>_<attribute>_<role>`), kept up to date with SQLite's own lower().
        let trigger =
            "CREATE TRIGGER Z_DA_ZNOTE_Note_searchTitle_SOURCE_UPDATE AFTER UPDATE OF ZTITLE ON ZNOTE FOR EACH ROW BEGIN UPDATE ZNOTE SET ZSEARCHTITLE = lower(NEW.ZTITLE) WHERE Z_PK = NEW.Z_PK; END"
        try DatabaseQueue(path: path).write { try $0.execute(sql: trigger) }

        let unchanged = try MigrationPlan.make(
            store: path,
            bundle: ModelBundle(name: "Notes", versions: Array(versions.prefix(2)), currentVersionName: "V2"))
        XCTAssertFalse(
            unchanged.beyondModel.contains { $0.hasPrefix("derived attribute") },
            "kept, so nothing to say: \(unchanged.beyondModel)")
        _ = try MigrationRunner.run(unchanged, store: path)
        try DatabaseQueue(path: path).write { db in
            XCTAssertEqual(
                try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger'"), [trigger],
                "made again as the store had it")
            try db.execute(sql: "UPDATE ZNOTE SET ZTITLE = 'Hello World', ZBODY = 'x' WHERE Z_PK = 1")
            XCTAssertEqual(
                try String.fetchOne(db, sql: "SELECT ZSEARCHTITLE FROM ZNOTE WHERE Z_PK = 1"), "hello world",
                "and it fires")
        }

        let changed = try MigrationPlan.make(
            store: path, bundle: ModelBundle(name: "Notes", versions: versions, currentVersionName: "V3"))
        XCTAssertTrue(
            changed.beyondModel.contains {
                $0.hasPrefix(
                    "derived attribute Note.searchTitle (uppercase:(title)): Chrysalis does not write Core Data's SQL for this derivation, so the store after V2 → V3 has no Z_DA_ triggers for it"
                )
            },
            "\(changed.beyondModel)")
        _ = try MigrationRunner.run(changed, store: path)
        XCTAssertEqual(
            try DatabaseQueue(path: path).read {
                try Int.fetchOne($0, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'trigger'")
            }, 0,
            "lowercase's triggers are not uppercase's: dropped, as the plan said")
    }
}
