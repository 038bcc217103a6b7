import Demo
import Foundation
import MigrationEngine
import ObjectModel
import SQLiteStore
import XCTest

/// A plan of several steps is one transaction for the user: stopped anywhere after its first
/// step, the original comes back byte for byte and the error says so; with keep-progress the
/// store stays where it got to and the error names that version and the backup.
final class PlanTransactionTests: XCTestCase {
    /// A BookStore store at its first version with a few generated rows, and its bytes.
    private func bookStore1() throws -> (path: String, bytes: Data) {
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        let model = try version(try bookStore(), "BookStore").model
        let store = try PersistentStore.create(at: path, model: model)
        try DataGenerator(model: model).fill(store, rows: 40)
        try store.close()
        return (path, try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The four-step plan BookStore → 5, one step per version, with the demo's mapping models.
    private func fourSteps(_ path: String) throws -> MigrationPlan {
        let plan = try MigrationPlan.make(
            store: path, bundle: try bookStore(),
            mappings: [try DemoResources.mapping("BookStore3To4"), try DemoResources.mapping("BookStore4To5")],
            strategy: .iterative)
        XCTAssertEqual(plan.steps.map(\.kind.name), ["lightweight", "lightweight", "mapping", "mapping"])
        return plan
    }

    /// Options that cancel the run as soon as step `step` starts.
    private func cancelling(at step: Int, log: ProgressLog) -> MigrationOptions {
        let options = MigrationOptions(policies: DemoResources.policies, configureManager: BookStoreSynopsis.install)
        let token = options.cancellation
        log.onProgress = { if $0.step == step { token.cancel() } }
        return options
    }

    func testACancelInAnyLaterStepPutsTheOriginalBackByteForByte() throws {
        for step in 2...4 {
            let (path, original) = try bookStore1()
            let log = ProgressLog()
            XCTAssertThrowsError(
                try MigrationRunner.run(try fourSteps(path), store: path, options: cancelling(at: step, log: log))
            ) { error in
                let failure = error as? MigrationError
                XCTAssertEqual(failure?.kind, .cancelled)
                XCTAssertEqual(failure?.state, .restored(version: "BookStore"), "step \(step)")
                XCTAssertTrue(
                    "\(error)".contains(
                        "the store is as it was, at BookStore: the steps already done were undone and the original put back, byte for byte"
                    ),
                    "\(error)")
            }
            XCTAssertEqual(
                try Data(contentsOf: URL(fileURLWithPath: path)), original, "step \(step): the original, byte for byte")
            XCTAssertEqual(
                try directoryListing(path), ["BookStore.sqlite"], "step \(step): no backup, journal or work file left")
        }
    }

    func testACancelInTheFirstStepChangesNothing() throws {
        let (path, original) = try bookStore1()
        let log = ProgressLog()
        XCTAssertThrowsError(
            try MigrationRunner.run(try fourSteps(path), store: path, options: cancelling(at: 1, log: log))
        ) { error in
            XCTAssertEqual((error as? MigrationError)?.state, .unchanged(version: "BookStore"))
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), original)
        XCTAssertEqual(try directoryListing(path), ["BookStore.sqlite"])
    }

    func testKeepProgressKeepsTheStepsDoneAndNamesTheVersionAndTheBackup() throws {
        let (path, original) = try bookStore1()
        let log = ProgressLog()
        XCTAssertThrowsError(
            try MigrationRunner.run(
                try fourSteps(path), store: path, options: cancelling(at: 3, log: log), keepProgress: true)
        ) { error in
            let backup = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(
                "BookStore~.sqlite"
            ).path
            XCTAssertEqual(
                (error as? MigrationError)?.state, .partial(version: "BookStore 3", done: 2, total: 4, backup: backup))
            XCTAssertTrue(
                "\(error)".contains(
                    "the store is at BookStore 3, after 2 of 4 steps (--keep-progress); the original is kept as \(backup)"
                ), "\(error)")
            XCTAssertEqual(try? Data(contentsOf: URL(fileURLWithPath: backup)), original)
        }
        let hashes = try PersistentStore.open(at: path).metadata().versionHashes
        XCTAssertEqual(hashes, try version(try bookStore(), "BookStore 3").entityHashes)
    }

    func testAWholePlanKeepsOnlyTheOriginal() throws {
        let (path, original) = try bookStore1()
        let report = try MigrationRunner.run(
            try fourSteps(path), store: path,
            options: MigrationOptions(policies: DemoResources.policies, configureManager: BookStoreSynopsis.install))
        XCTAssertEqual(report.steps.count, 4)
        XCTAssertEqual(
            try directoryListing(path), ["BookStore.sqlite", "BookStore~.sqlite"], "no intermediate version is kept")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: try XCTUnwrap(report.backup))), original)
    }

    /// An unregistered policy in the third step fails before the first step writes anything.
    func testAMissingPolicyLaterInThePlanFailsBeforeTheFirstWrite() throws {
        let (path, original) = try bookStore1()
        XCTAssertThrowsError(try MigrationRunner.run(try fourSteps(path), store: path)) { error in
            XCTAssertEqual((error as? MigrationError)?.kind, .missingPolicy)
            XCTAssertTrue("\(error)".contains("BookStore3To4: PublicationToPublication names"), "\(error)")
            XCTAssertEqual((error as? MigrationError)?.state, .unchanged(version: "BookStore"))
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), original)
        XCTAssertEqual(try directoryListing(path), ["BookStore.sqlite"])
    }
}
