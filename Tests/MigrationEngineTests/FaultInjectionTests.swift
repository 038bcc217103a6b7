import Demo
import Foundation
import GRDB
import MigrationEngine
import ObjectModel
import SQLiteStore
import TestSupport
import XCTest

/// Faults injected into real migrations on real files: a volume too small from the start, a disk
/// that fills up half way, another process writing the store, a read-only directory, a store
/// kept private. Each must end in a clear error (or a correct result) with the source intact.
final class FaultInjectionTests: XCTestCase {
    private var bookStore3To4: (ModelBundle.Version, ModelBundle.Version, MappingModel) {
        get throws {
            let bundle = try bookStore()
            return (
                try version(bundle, "BookStore 3"), try version(bundle, "BookStore 4"),
                try DemoResources.mapping("BookStore3To4")
            )
        }
    }

    // MARK: Disk full

    func testTooSmallAVolumeIsRefusedBeforeAnyWorkWithTheSpaceNeeded() throws {
        let volume = try TinyVolume(megabytes: 4, test: self)
        let path = volume.path("BookStore.sqlite")
        try makeBookStore3(at: path)
        try volume.fill(leaving: 64 * 1024)
        let before = try digest(path)
        let (from, to, mapping) = try bookStore3To4
        XCTAssertThrowsError(
            try MappingMigration.run(
                store: path, from: from, to: to, mappings: [mapping],
                options: MigrationOptions(policies: DemoResources.policies))
        ) { error in
            XCTAssertEqual((error as? MigrationError)?.kind, .noSpace, "\(error)")
            XCTAssertTrue(
                "\(error)".hasPrefix("not enough free space for the step BookStore 3 → BookStore 4: it needs about "),
                "\(error)")
            XCTAssertTrue("\(error)".contains("free at least"), "\(error)")
        }
        XCTAssertEqual(try digest(path), before)
        XCTAssertEqual(try directoryListing(path), ["BookStore.sqlite", "filler"])

        // The in-place path needs room for its backup copy.
        let bundle = try bookStore()
        let v1 = volume.path("Old.sqlite")
        try volume.removeFiller()
        let store = try PersistentStore.create(at: v1, model: try version(bundle, "BookStore").model)
        try store.close()
        try volume.fill(leaving: 64 * 1024)
        let plan = try MigrationPlan.make(store: v1, bundle: bundle, to: "BookStore 2")
        XCTAssertThrowsError(try MigrationRunner.run(plan, store: v1)) { error in
            XCTAssertEqual((error as? MigrationError)?.kind, .noSpace, "\(error)")
            XCTAssertTrue("\(error)".contains("a byte copy of the store as its backup"), "\(error)")
        }
    }

    /// A plan whose first step fits and whose third does not is refused before its first write
    /// (issue 29 §6): before, steps 1 and 2 ran, then step 3 was found not to fit and the
    /// original was put back.
    func testAPlanIsCheckedForSpaceAtItsMostDemandingStepBeforeItsFirstWrite() throws {
        let volume = try TinyVolume(megabytes: 16, test: self)
        let path = volume.path("BookStore.sqlite")
        let model = try version(try bookStore(), "BookStore").model
        let store = try PersistentStore.create(at: path, model: model)
        try DataGenerator(model: model).fill(store, rows: 6000)
        try store.close()
        let size = Int64(try Data(contentsOf: URL(fileURLWithPath: path)).count)
        // Room for step 1 (a backup copy and a journal), not for step 3's new store beside the kept original.
        try volume.fill(leaving: Int(size + (1 << 20) + (1 << 17)))
        let before = try digest(path)
        var options = MigrationOptions(policies: DemoResources.policies)
        let steps = StepTally()
        options.afterStep = { _ in steps.add() }
        let plan = try MigrationPlan.make(
            store: path, bundle: try bookStore(),
            mappings: [try DemoResources.mapping("BookStore3To4"), try DemoResources.mapping("BookStore4To5")],
            strategy: .iterative)
        XCTAssertThrowsError(try MigrationRunner.run(plan, store: path, options: options)) { error in
            XCTAssertEqual((error as? MigrationError)?.kind, .noSpace, "\(error)")
            XCTAssertTrue(
                "\(error)".contains(
                    "not enough free space for the plan BookStore → BookStore 5 (4 steps): it needs about "), "\(error)"
            )
            XCTAssertTrue("\(error)".contains("its step 3, BookStore 3 → BookStore 4, needs a new store"), "\(error)")
            XCTAssertTrue("\(error)".contains("the store is as it was, at BookStore; nothing was changed"), "\(error)")
        }
        XCTAssertEqual(steps.count, 0, "no step ran")
        XCTAssertEqual(try digest(path), before)
        XCTAssertEqual(try directoryListing(path), ["BookStore.sqlite", "filler"])
    }

    func testDiskFillingUpHalfWayRollsBackRemovesPartialFilesAndSaysWhatWasNeeded() throws {
        let volume = try TinyVolume(megabytes: 4, test: self)
        let path = volume.path("BookStore.sqlite")
        try makeBookStore3(at: path)
        let before = try digest(path)
        let (from, to, mapping) = try bookStore3To4
        // The space check passes; then something else takes the rest of the volume.
        let options = MigrationOptions(
            policies: DemoResources.policies, configureManager: { _ in try volume.fill(leaving: 0) })
        XCTAssertThrowsError(
            try MappingMigration.run(store: path, from: from, to: to, mappings: [mapping], options: options)
        ) { error in
            XCTAssertEqual((error as? MigrationError)?.kind, .noSpace, "\(error)")
            XCTAssertTrue(
                "\(error)".hasPrefix("the disk filled up during the step BookStore 3 → BookStore 4: it needs about "),
                "\(error)")
            XCTAssertTrue("\(error)".contains("its partial files were removed"), "\(error)")
        }
        XCTAssertEqual(try digest(path), before)
        XCTAssertEqual(try directoryListing(path), ["BookStore.sqlite", "filler"])
        // With the space back, the same migration succeeds.
        try volume.removeFiller()
        XCTAssertNoThrow(
            try MappingMigration.run(
                store: path, from: from, to: to, mappings: [mapping],
                options: MigrationOptions(policies: DemoResources.policies)))
    }

    // MARK: Files

    func testMigratedStoreBackupAndWorkFilesKeepTheSourcesModeAndOwner() throws {
        let path = try scratchDirectory().appendingPathComponent("Private Store ✓.sqlite").path
        try makeBookStore3(at: path)
        XCTAssertEqual(chmod(path, 0o600), 0)
        let owner: uid_t = getuid() == 0 ? 4321 : getuid(), group: gid_t = getuid() == 0 ? 4322 : getgid()
        XCTAssertEqual(chown(path, owner, group), 0)
        let (from, to, mapping) = try bookStore3To4
        final class Seen: @unchecked Sendable { var modes: [String: mode_t] = [:] }
        let seen = Seen()
        let options = MigrationOptions(
            policies: DemoResources.policies,
            configureManager: { _ in
                // Mid-migration: the files holding rows are as private as the source.
                let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
                for name in try FileManager.default.contentsOfDirectory(atPath: directory.path)
                where name.contains(".chrysalis-") && !name.hasSuffix("-lock") {
                    seen.modes[name] = try Self.mode(directory.appendingPathComponent(name).path).mode
                }
            })
        let report = try MappingMigration.run(store: path, from: from, to: to, mappings: [mapping], options: options)
        XCTAssertEqual(
            Set(seen.modes.keys).isSuperset(of: [
                ".Private Store ✓.sqlite.chrysalis-new", ".Private Store ✓.sqlite.chrysalis-work",
            ]), true, "\(seen.modes)")
        XCTAssertTrue(seen.modes.values.allSatisfy { $0 == 0o600 }, "\(seen.modes)")
        for file in [path, try XCTUnwrap(report.backup)] {
            let found = try Self.mode(file)
            XCTAssertEqual(found.mode, 0o600, file)
            XCTAssertEqual(found.owner, owner, file)
            XCTAssertEqual(found.group, group, file)
        }

        // An in-place step's backup is a copy: it too keeps them.
        let bundle = try bookStore()
        let v1 = try scratchDirectory().appendingPathComponent("Old.sqlite").path
        try PersistentStore.create(at: v1, model: try version(bundle, "BookStore").model).close()
        XCTAssertEqual(chmod(v1, 0o640), 0)
        XCTAssertEqual(chown(v1, owner, group), 0)
        let result = try MigrationRunner.run(
            try MigrationPlan.make(store: v1, bundle: bundle, to: "BookStore 2"), store: v1)
        for file in [v1, try XCTUnwrap(result.backup)] {
            XCTAssertEqual(try Self.mode(file).mode, 0o640, file)
            XCTAssertEqual(try Self.mode(file).owner, owner, file)
        }
    }

    func testReadOnlyDirectoryIsRefusedBeforeAnyWork() throws {
        let directory = try scratchDirectory()
        let path = directory.appendingPathComponent("BookStore.sqlite").path
        try makeBookStore3(at: path)
        XCTAssertEqual(chmod(directory.path, 0o555), 0)
        defer { chmod(directory.path, 0o755) }
        let (from, to, mapping) = try bookStore3To4
        XCTAssertThrowsError(
            try MappingMigration.run(
                store: path, from: from, to: to, mappings: [mapping],
                options: MigrationOptions(policies: DemoResources.policies))
        ) { error in
            XCTAssertEqual((error as? MigrationError)?.kind, .notWritable, "\(error)")
            XCTAssertEqual(
                "\(error)",
                "cannot migrate \(path): its directory \(directory.path) is read-only (mode 555). Fix: a migration writes its new store and backup beside the store: make the directory writable (chmod u+w), or copy the store to a writable directory and migrate it there"
            )
        }
        // Through a plan runner, the error also says where the store stands.
        let plan = try MigrationPlan.make(store: path, bundle: try bookStore(), mappings: [mapping], to: "BookStore 4")
        XCTAssertThrowsError(
            try MigrationRunner.run(plan, store: path, options: MigrationOptions(policies: DemoResources.policies))
        ) { error in
            XCTAssertTrue(
                "\(error)".contains(
                    "is read-only (mode 555); the store is as it was, at BookStore 3; nothing was changed. Fix: a migration writes"
                ), "\(error)"
            )
        }
        XCTAssertEqual(try directoryListing(path), ["BookStore.sqlite"])
    }

    func testAReadOnlyStoreIsRefusedBeforeAnyWork() throws {
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        try makeBookStore3(at: path)
        XCTAssertEqual(chmod(path, 0o444), 0)
        let before = try digest(path)
        let plan = try MigrationPlan.make(
            store: path, bundle: try bookStore(), mappings: [try bookStore3To4.2], to: "BookStore 4")
        XCTAssertThrowsError(
            try MigrationRunner.run(plan, store: path, options: MigrationOptions(policies: DemoResources.policies))
        ) { error in
            XCTAssertEqual((error as? MigrationError)?.kind, .notWritable, "\(error)")
            XCTAssertTrue(
                "\(error)".contains("the store is read-only (mode 444); the store is as it was, at BookStore 3"),
                "\(error)")
            XCTAssertFalse("\(error)".contains(".chrysalis-new"), "no hidden work path in a message: \(error)")
        }
        XCTAssertEqual(try digest(path), before)
        XCTAssertEqual(try directoryListing(path), ["BookStore.sqlite"])
    }

    // MARK: Other writers

    func testAWriteToTheSourceDuringTheMigrationStopsTheSwap() throws {
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        try makeBookStore3(at: path)
        let (from, to, mapping) = try bookStore3To4
        // Another connection (an app, say) changes a title while the migration copies the store.
        let options = MigrationOptions(
            policies: DemoResources.policies,
            configureManager: { _ in
                let app = try DatabaseQueue(path: path)
                try app.write { db in
                    try db.execute(sql: "UPDATE ZPUBLICATION SET ZTITLE = 'Changed by the app' WHERE Z_PK = 1")
                }
                try app.close()
            })
        XCTAssertThrowsError(
            try MappingMigration.run(store: path, from: from, to: to, mappings: [mapping], options: options)
        ) { error in
            XCTAssertEqual((error as? MigrationError)?.kind, .otherWriter, "\(error)")
            XCTAssertTrue("\(error)".contains("was written by another process while it was being migrated"), "\(error)")
        }
        // The app's change is in the store, which is still at BookStore 3; nothing was left behind.
        XCTAssertEqual(
            try rows(path, "SELECT ZTITLE FROM ZPUBLICATION WHERE Z_PK = 1"), [["Changed by the app".databaseValue]])
        XCTAssertEqual(try directoryListing(path).filter { $0.contains("chrysalis") }, [])
        XCTAssertNoThrow(
            try MappingMigration.run(
                store: path, from: from, to: to, mappings: [mapping],
                options: MigrationOptions(policies: DemoResources.policies)))
    }

    private static func mode(_ path: String) throws -> (mode: mode_t, owner: uid_t, group: gid_t) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw CocoaError(.fileNoSuchFile) }
        return (info.st_mode & 0o7777, info.st_uid, info.st_gid)
    }
}

/// Counts completed steps from the runner's thread.
private final class StepTally: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()
    func add() { lock.withLock { value += 1 } }
    var count: Int { lock.withLock { value } }
}
