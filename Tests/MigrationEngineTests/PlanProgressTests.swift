import Demo
import Foundation
import MigrationEngine
import ObjectModel
import SQLiteStore
import Synchronization
import XCTest

/// Progress that means what it says, over a whole four-step plan on a real store: each stage
/// counts its own unit, each step fills the share of the bar its cost says, two migrations never
/// hear each other, and every step's end is reported to `afterStep` with the store at its version.
final class PlanProgressTests: XCTestCase {
    /// A BookStore store at its first version with `rows` generated rows per root entity.
    private func bookStore1(rows: Int = 300) throws -> String {
        let path = try scratchDirectory().appendingPathComponent("BookStore.sqlite").path
        let model = try version(try bookStore(), "BookStore").model
        let store = try PersistentStore.create(at: path, model: model)
        try DataGenerator(model: model).fill(store, rows: rows)
        try store.close()
        return path
    }

    private func fourSteps(_ path: String) throws -> MigrationPlan {
        try MigrationPlan.make(
            store: path, bundle: try bookStore(),
            mappings: [try DemoResources.mapping("BookStore3To4"), try DemoResources.mapping("BookStore4To5")],
            strategy: .iterative)
    }

    /// Runs the plan, collecting what its own channel posts.
    private func run(_ path: String, _ configure: (inout MigrationOptions) -> Void = { _ in }) throws
        -> [MigrationProgress]
    {
        var options = MigrationOptions(
            policies: DemoResources.policies, chunkSize: 100, configureManager: BookStoreSynopsis.install)
        configure(&options)
        let seen = Mutex<[MigrationProgress]>([])
        let observation = options.progressChannel.observe { progress in seen.withLock { $0.append(progress) } }
        defer { observation.cancel() }
        _ = try MigrationRunner.run(try fourSteps(path), store: path, options: options)
        return seen.withLock { $0 }
    }

    func testEveryStageCountsItsOwnUnitAndTheBarNeverGoesBack() throws {
        let values = try run(try bookStore1())
        for (earlier, later) in zip(values, values.dropFirst()) {
            XCTAssertLessThanOrEqual(earlier.fraction, later.fraction)
        }
        XCTAssertEqual(values.filter { $0.fraction == 1 }.count, 1, "1.0 once, at the plan's end")
        let validate = try XCTUnwrap(values.first { $0.stage == .validate && $0.step == 3 })
        XCTAssertEqual(validate.unit, .rows)
        XCTAssertEqual(validate.rowsTotal, 300 * 3, "validation counts the destination's rows, not its 3 entities")
        XCTAssertEqual(
            values.last { $0.stage == .validate && $0.step == 3 }?.rowsDone, validate.rowsTotal,
            "and gets to the end of them")
        XCTAssertEqual(
            values.first { $0.stage == .indexes && $0.step == 3 }?.unit, .indexes,
            "index builds are a stage of their own")
        XCTAssertEqual(
            values.first { $0.stage == .verify && $0.step == 3 }?.rowsTotal, validate.rowsTotal,
            "verification counts rows too")
        XCTAssertEqual(values.first { $0.stage == .inPlace && $0.step == 1 }?.unit, .tables)
        XCTAssertTrue(
            values.contains { $0.stage == .backup && $0.step == 1 && $0.unit == .megabytes },
            "the first step copies the original first")
        XCTAssertFalse(values.contains { $0.stage == .backup && $0.step == 2 }, "later steps keep no copy of their own")
        XCTAssertTrue(
            values.filter { $0.step <= 2 }.allSatisfy { $0.pass.hasSuffix("(lightweight, in place)") },
            "one word for in-place steps")
    }

    func testEachStepFillsTheShareItsCostSays() throws {
        let values = try run(try bookStore1())
        func share(_ step: Int) -> Double {
            let fractions = values.filter { $0.step == step }.map(\.fraction)
            let next = values.first { $0.step == step + 1 }?.fraction ?? 1
            return next - (fractions.min() ?? 0)
        }
        // The custom policy's row-by-row step costs the most; an in-place change of a small store the least.
        XCTAssertGreaterThan(share(3), share(4), "3 → 4 runs a custom policy row by row")
        XCTAssertGreaterThan(share(4), share(2), "4 → 5 rewrites every row; 2 → 3 renames a table")
        XCTAssertLessThan(
            share(1) + share(2), share(3), "both in-place steps together cost less than the row-by-row step")
    }

    func testTwoMigrationsInOneProcessNeverHearEachOther() throws {
        let first = try bookStore1(rows: 50), second = try bookStore1(rows: 60)
        let heard = Mutex<[String: Set<Int>]>([:])
        var options = [
            MigrationOptions(policies: DemoResources.policies, configureManager: BookStoreSynopsis.install),
            MigrationOptions(policies: DemoResources.policies, configureManager: BookStoreSynopsis.install),
        ]
        let observations = zip(["first", "second"], options).map { name, options in
            options.progressChannel.observe { progress in
                heard.withLock { _ = $0[name, default: []].insert(progress.rowsTotal) }
            }
        }
        defer { for observation in observations { observation.cancel() } }
        options[1].chunkSize = 7
        let plans = [try fourSteps(first), try fourSteps(second)]
        let both = options
        // Each run's error, if any, fails the test instead of being dropped.
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            do {
                _ = try MigrationRunner.run(plans[index], store: [first, second][index], options: both[index])
            } catch {
                failures.withLock { $0.append("run \(index): \(error)") }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [], "both runs migrate")
        let totals = heard.withLock { $0 }
        XCTAssertTrue(try XCTUnwrap(totals["first"]).contains(50 * 3))
        XCTAssertFalse(try XCTUnwrap(totals["first"]).contains(60 * 3), "the first never hears the second's rows")
        XCTAssertFalse(try XCTUnwrap(totals["second"]).contains(50 * 3), "nor the second the first's")
    }

    func testAfterStepSeesEveryStepAtItsVersionAndAThrowPutsTheOriginalBack() throws {
        let path = try bookStore1(rows: 20)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let versions = Mutex<[String]>([])
        let bundle = try bookStore()
        struct Stop: Error {}
        XCTAssertThrowsError(
            try run(path) { options in
                options.afterStep = { done in
                    let hashes = try PersistentStore.open(at: done.store).metadata().versionHashes
                    versions.withLock { $0.append(bundle.versions.first { $0.entityHashes == hashes }?.name ?? "?") }
                    if done.index == 3 { throw Stop() }
                }
            }
        ) { error in
            XCTAssertEqual((error as? MigrationError)?.state, .restored(version: "BookStore"), "\(error)")
        }
        XCTAssertEqual(versions.withLock { $0 }, ["BookStore 2", "BookStore 3", "BookStore 4"])
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: path)), original,
            "stopped after a step, the plan still puts the original back")
    }
}
